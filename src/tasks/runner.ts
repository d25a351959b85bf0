/**
 * Runs one task list (tasks.md §3 chain semantics): in document order, one after the other; a
 * warning counts as success and sets the info status to `W`; the first failure stops the chain
 * and reports its ErrorCode (ExternalOp when the task has none); an accepted RESCHEDULE stops the
 * chain silently.
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { isSendMode, type Rule, type RuleTask } from '../model/rule.js';
import { describeSession, type TaskContext } from './context.js';
import type { TaskRegistry } from './registry.js';
import { normalizeSpaces } from './substitution.js';
import { errorText, type TaskResult } from './task.js';

/** Which side of the file this host is in the session. */
export type TaskSide = 'sender' | 'receiver';
/** Which of the three lists of a side. */
export type TaskListStep = 'pre' | 'post' | 'error';

/**
 * The list a side runs at a step (tasks.md §2): the sender of the file runs the S lists, the
 * receiver the R lists, whatever the requester/requested roles are.
 */
export function tasksFor(rule: Rule, side: TaskSide, step: TaskListStep): RuleTask[] {
  if (side === 'sender') return step === 'pre' ? rule.sPreTasks : step === 'post' ? rule.sPostTasks : rule.sErrorTasks;
  return step === 'pre' ? rule.rPreTasks : step === 'post' ? rule.rPostTasks : rule.rErrorTasks;
}

/** The side of this host: the requester sends in send modes, the requested host in recv modes. */
export function sideOf(rule: Pick<Rule, 'mode'>, isRequester: boolean): TaskSide {
  return isSendMode(rule.mode) === isRequester ? 'sender' : 'receiver';
}

export interface TaskListOutcome {
  status: 'success' | 'failure' | 'rescheduled';
  /** True when at least one task ended in Warning. */
  warning: boolean;
  /** Failure: the code to report (the task's own, else ExternalOp). Success: PreProcessingOk-style codes are the engine's. */
  code?: ErrorCodeInfo;
  /** Failure message (becomes the error message sent to the partner and `#ERRORMSG#`). */
  message?: string;
  /** Index of the task that failed or rescheduled. */
  index?: number;
  /** Result data of the last task that gave some. */
  data?: string;
}

export interface RunOptions {
  registry: TaskRegistry;
  /** First task to run (restart of an interrupted list); default 0. */
  startIndex?: number;
  /** Called before each task with its index, so the engine can persist `STEP`. */
  onTaskStart?(index: number, task: RuleTask): void | Promise<void>;
}

function effectiveDelay(task: RuleTask, ctx: TaskContext): number {
  // `<delay/>` reaches us as NaN or a negative number: the original uses the connection timeout.
  if (Number.isFinite(task.delay) && task.delay >= 0) return task.delay;
  return ctx.options?.defaultTimeoutMs ?? 30_000;
}

/** Runs `tasks` on `ctx`. Never throws for a task's sake: a thrown error is a failure `E`. */
export async function runTaskList(tasks: readonly RuleTask[], ctx: TaskContext, opts: RunOptions): Promise<TaskListOutcome> {
  let warned = false;
  let data: string | undefined;
  for (let index = opts.startIndex ?? 0; index < tasks.length; index++) {
    const task = tasks[index] as RuleTask;
    const type = task.type.trim().toUpperCase();
    const impl = opts.registry.get(type);
    if (!impl) {
      // Rules are checked at load; a list reaching us with an unknown type (e.g. edited in the
      // database) is treated as the original treats it at load: skipped and logged.
      ctx.logger.warn(`task ${index + 1} of type "${task.type}" is unknown and skipped (${describeSession(ctx)})`);
      continue;
    }
    await opts.onTaskStart?.(index, task);
    ctx.engine.keepAlive?.();
    let result: TaskResult;
    try {
      result = await impl.run({ type, argument: normalizeSpaces(task.path), delay: effectiveDelay(task, ctx), ctx, registry: opts.registry });
    } catch (err) {
      result = { kind: 'failure', code: ErrorCode.ExternalOp, message: `${type} task failed: ${errorText(err)}` };
    }
    ctx.engine.keepAlive?.();
    if (result.kind === 'failure') {
      if (ctx.transfer) ctx.transfer.infoStatus = result.code;
      ctx.logger.error(`${type} task ${index + 1} failed with ${result.code.name}: ${result.message} (${describeSession(ctx)})`);
      return { status: 'failure', warning: warned, code: result.code, message: result.message, index, data };
    }
    if (result.data !== undefined) data = result.data;
    if (result.warning) {
      warned = true;
      if (ctx.transfer) ctx.transfer.infoStatus = ErrorCode.Warning;
    }
    if (result.stopChain) {
      return { status: 'rescheduled', warning: warned, code: ErrorCode.Warning, index, data };
    }
  }
  return { status: 'success', warning: warned, data };
}
