/**
 * The plug-in contract (docs/plugins/README.md). There is no JVM: what the original loads as a
 * Java class (EXECJAVA's class name, `extendTaskFactory` factories) is here an ES module that
 * exports a `TaskPluginModule`.
 */
import type { TaskContext } from './context.js';
import type { TaskImplementation } from './task.js';

/** What an EXECJAVA plug-in receives (the original's `setArgs`). */
export interface ExecJavaCall {
  ctx: TaskContext;
  /** Class name as written in the rule. */
  className: string;
  /** The argument after `<class name> ` (pipeline A already applied). */
  args: string;
  /** The rule delay (ms). */
  delay: number;
  /** False when `#NOWAIT#` was given: the task has already reported success. */
  waitForValidation: boolean;
  useLocalExec: boolean;
  /** Aborted when the time limit (`delay` > 100) expires; a plug-in should stop then. */
  signal: AbortSignal;
}

/** One EXECJAVA plug-in instance; created fresh for every run, like the original's no-arg constructor. */
export interface ExecJavaPlugin {
  /** Final status: 0 success, 1 success with a warning log, anything else failure. */
  run(call: ExecJavaCall): number | Promise<number>;
}

export type ExecJavaFactory = () => ExecJavaPlugin;

/** Shape of a plug-in module. Both parts are optional; a module may bring both. */
export interface TaskPluginModule {
  /** EXECJAVA plug-ins by class name (the name rules write as first word of the argument). */
  execJava?: Record<string, ExecJavaFactory>;
  /** New task types (the original's extension task factories); they override built-in names. */
  taskTypes?: Record<string, TaskImplementation>;
}
