/**
 * EXECJAVA (tasks.md §8): runs a registered plug-in by class name. The first word of the argument
 * is the class name; the plug-in receives the rest. Status 0 = success, 1 = success with a warning
 * log, other = failure; `delay` > 100 is a time limit (status -1), `#NOWAIT#` reports success at once.
 */
import { ErrorCode } from '../model/error-code.js';
import { execFailureMessage } from './exec-tasks.js';
import type { ExecJavaPlugin } from './plugin-types.js';
import { canonicalClassName, isValidClassName } from './plugins.js';
import { pipelineA } from './substitution.js';
import { errorText, failure, success, type TaskImplementation } from './task.js';

const TIMEOUT_STATUS = -1;

const execJavaTask: TaskImplementation = {
  async run({ type, argument, delay, ctx, registry }) {
    // Pipeline A only applies with transfer information; outside a transfer the text is raw.
    const a = ctx.transfer ? pipelineA(argument, ctx) : { text: argument, noWait: argument.includes('#NOWAIT#'), localExec: argument.includes('#LOCALEXEC#') };
    const text = a.text.trim();
    const space = text.indexOf(' ');
    const className = space < 0 ? text : text.slice(0, space);
    const args = space < 0 ? '' : text.slice(space + 1);
    if (!isValidClassName(className)) return failure(`${type}: "${className}" is not a valid plug-in class name`, ErrorCode.CommandNotFound);
    const factory = registry.execJavaFactory(canonicalClassName(className));
    if (!factory) return failure(`${type}: no plug-in registered for class ${className}`, ErrorCode.CommandNotFound);
    let plugin: ExecJavaPlugin;
    try {
      plugin = factory();
    } catch (err) {
      return failure(`${type}: cannot create plug-in ${className}: ${errorText(err)}`, ErrorCode.CommandNotFound);
    }
    const abort = new AbortController();
    const call = { ctx, className, args, delay, waitForValidation: !a.noWait, useLocalExec: a.localExec, signal: abort.signal };
    const running = Promise.resolve().then(() => plugin.run(call)).catch((err: unknown) => {
      ctx.logger.error(`${type}: plug-in ${className} failed: ${errorText(err)}`);
      return 2;
    });
    if (a.noWait) {
      void running.then((status) => { if (status !== 0 && status !== 1) ctx.logger.warn(`${type}: plug-in ${className} (not waited for) ended with status ${status}`); });
      return success();
    }
    let status: number;
    if (delay > 100) {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<number>((resolve) => { timer = setTimeout(() => { abort.abort(); resolve(TIMEOUT_STATUS); }, delay); });
      status = await Promise.race([running, limit]);
      clearTimeout(timer);
    } else {
      status = await running;
    }
    if (status === 0) return success();
    if (status === 1) {
      ctx.logger.warn(`${type}: plug-in ${className} ended with a warning`);
      return success();
    }
    const why = status === TIMEOUT_STATUS ? `stopped after the time limit of ${delay} ms` : `ended with status ${status}`;
    return failure(execFailureMessage(status, `${type}: plug-in ${className} ${why}`));
  },
};

export const execJavaTasks: Record<string, TaskImplementation> = { EXECJAVA: execJavaTask };
