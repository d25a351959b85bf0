/** What a task implementation is, and the three outcomes of tasks.md §7. */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import type { TaskContext } from './context.js';
import type { TaskRegistry } from './registry.js';

/** Outcome of one task. */
export type TaskResult =
  | {
      kind: 'success';
      /** Warning: still a success; the runner sets the info status to `W`. */
      warning?: boolean;
      /** Free result data (EXECMOVE's new path, EXECOUTPUT's output). */
      data?: string;
      /** RESCHEDULE accepted: the rest of the list is skipped. */
      stopChain?: boolean;
    }
  | {
      kind: 'failure';
      /** The task's own code; `E` ExternalOp when it has none. */
      code: ErrorCodeInfo;
      message: string;
    };

/** Everything a task receives. */
export interface TaskInvocation {
  /** Upper-case type name as written in the rule. */
  type: string;
  /** The raw rule argument (`path`), white space already normalised. */
  argument: string;
  /** The rule `delay` (its meaning depends on the type). */
  delay: number;
  ctx: TaskContext;
  /** The registry the runner uses (EXECJAVA looks plug-ins up there). */
  registry: TaskRegistry;
}

/** A task type implementation. */
export interface TaskImplementation {
  run(call: TaskInvocation): Promise<TaskResult>;
}

export function success(data?: string): TaskResult {
  return data === undefined ? { kind: 'success' } : { kind: 'success', data };
}

export function warning(data?: string): TaskResult {
  return data === undefined ? { kind: 'success', warning: true } : { kind: 'success', warning: true, data };
}

export function failure(message: string, code: ErrorCodeInfo = ErrorCode.ExternalOp): TaskResult {
  return { kind: 'failure', code, message };
}

/** Message of an unknown thrown value, without stack. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
