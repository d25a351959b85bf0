/**
 * The task types of a running server (tasks.md §11): at start, the plug-ins named in the
 * `extendTaskFactory` section are loaded into the registry the transfer engine uses, then every
 * rule the server will run (database or rule files of the no-database mode) is checked against it:
 * a task of a type it does not run is reported with a warning naming the task and the rule. The
 * rule files of the no-database mode are
 * read before the plug-ins are loaded, with every task type: here they keep what the registry runs
 * (plug-in types included) and lose unknown types with a warning, as a rule file load does.
 */
import type { Logger } from 'pino';
import { createTaskRegistry, loadExtendTaskFactories, validateRules, type TaskLogger, type TaskRegistry } from '../tasks/index.js';
import type { Component } from './component.js';
import type { ServerRuntime } from './runtime.js';

export class ServerTasks implements Component {
  readonly name = 'tasks';
  /** Handed to the transfer engine when built; filled with the plug-ins at start. */
  readonly registry: TaskRegistry = createTaskRegistry();
  private loaded: string[] = [];

  constructor(private readonly runtime: ServerRuntime) {}

  async start(): Promise<void> {
    const { config } = this.runtime;
    const log = taskLogger(this.runtime.log.child({ component: 'tasks' }));
    await loadExtendTaskFactories(this.registry, config.extendTaskFactories.join(','), config.directories.conf, log);
    this.loaded = config.extendTaskFactories;
    const { store } = this.runtime;
    const checked = validateRules(await store.rules.list(), this.registry);
    checked.warnings.forEach((w) => log.warn(w));
    // Rules read from files into this process (no-database mode) keep what the registry runs; rows
    // of a database are not rewritten at start.
    if (store.inProcess) for (const rule of checked.rules) await store.rules.upsert(rule);
  }

  describe(): string[] {
    return this.loaded.length > 0 ? [`task plug-ins: ${this.loaded.join(', ')}`] : [];
  }

  async stop(): Promise<void> {}
}

/** A pino logger as the tasks' logger. */
export function taskLogger(log: Logger): TaskLogger {
  return { trace: (m) => log.trace(m), debug: (m) => log.debug(m), info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m) };
}
