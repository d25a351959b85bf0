/** LOG (tasks.md §8): writes a message to the application log and/or appends it to a file. Never fails. */
import { appendFile } from 'node:fs/promises';
import { describeSession, type TaskContext } from './context.js';
import { pipelineA } from './substitution.js';
import { errorText, success, warning, type TaskImplementation, type TaskResult } from './task.js';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** The level named by the first word (case-insensitive), else WARN; the word stays in the text. */
export function logLevelOf(text: string): Level {
  const m = /^(TRACE|DEBUG|INFO|WARN|ERROR)/i.exec(text);
  return m ? (m[1] as string).toLowerCase() as Level : 'warn';
}

function toLog(ctx: TaskContext, text: string): void {
  ctx.logger[logLevelOf(text)](`${text} - ${describeSession(ctx)}`);
}

export const logTask: TaskImplementation = {
  async run({ argument, delay, ctx }): Promise<TaskResult> {
    const text = pipelineA(argument, ctx).text;
    if (delay === 1 || delay === 3) toLog(ctx, text);
    if (delay !== 2 && delay !== 3) return success();
    // File modes: the last word is the file; every other word is written followed by a space,
    // then one more space, and no newline (the original's exact output).
    const words = text.split(' ');
    const file = words.pop() ?? '';
    const content = words.map((w) => `${w} `).join('') + ' ';
    try {
      if (file === '') throw new Error('no file name (last word of the argument)');
      await appendFile(file, content);
      return success();
    } catch (err) {
      ctx.logger.warn(`LOG task cannot write to file "${file}": ${errorText(err)}`);
      if (delay === 2) toLog(ctx, words.join(' '));
      return warning();
    }
  },
};
