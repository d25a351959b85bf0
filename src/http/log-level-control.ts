/**
 * The run-time log levels as REST sees them (GET/PUT /v2/server/loglevel). The logger lives in
 * src/server, which REST must not import (test/layering): the server's logger module provides the
 * control here when it loads; without one, the levels read INFO and nothing can be changed.
 */

/** The levels in force: root and per logger. */
export interface LogLevels {
  root: string;
  loggers: Record<string, string>;
}

export interface LogLevelControl {
  levels(): LogLevels;
  /** Changes the root level, or one logger's; throws on an unknown level. Returns the levels now. */
  set(level: string, logger?: string): LogLevels;
}

const NONE: LogLevelControl = {
  levels: () => ({ root: 'INFO', loggers: {} }),
  set: () => {
    throw new Error('no logger to change');
  },
};

let provided: LogLevelControl = NONE;

/** Called by the server's logger module. */
export function provideLogLevelControl(control: LogLevelControl): void {
  provided = control;
}

export function logLevelControl(): LogLevelControl {
  return provided;
}
