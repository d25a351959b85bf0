/** Pipeline B words of a network task (ICAP, S3*), or the failure to report (tasks.md §5). */
import { CommandLineError, commandLineFailure } from '../command-line.js';
import type { TaskContext } from '../context.js';
import { pipelineB } from '../substitution.js';
import { failure, type TaskResult } from '../task.js';

export function taskWords(type: string, argument: string, ctx: TaskContext, minWords: number, expected: string): string[] | TaskResult {
  let words: string[];
  try {
    words = pipelineB(argument, ctx).words;
  } catch (err) {
    if (err instanceof CommandLineError) return commandLineFailure(type, err, ctx.logger);
    throw err;
  }
  if (words.length < minWords) return failure(`${type}: at least ${minWords} words expected (${expected}), got ${words.length}`);
  return words;
}
