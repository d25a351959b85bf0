/**
 * Splits a command line into words the way pipeline B does (tasks.md §5, Apache Commons Exec
 * semantics): spaces separate words; a part enclosed in double or single quotes may contain
 * spaces and loses its quotes; `""` gives an empty word. No other shell syntax exists: no
 * escapes, globbing, pipes or variables, which is what keeps file names from injecting anything.
 */

/** The message names the problem only; the line (a rule's, with its credentials) is in `line`, for this host's log. */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { maskTaskArgument } from '../model/rule-secrets.js';
import type { TaskLogger } from './context.js';
import { failure, type TaskResult } from './task.js';

export class CommandLineError extends Error {
  constructor(message: string, readonly line: string) {
    super(message);
    this.name = 'CommandLineError';
  }
}

/** Words of `line`; throws CommandLineError on an unbalanced quote. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let lastWasQuoted = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) {
        quote = null;
        lastWasQuoted = true;
      } else {
        current += ch;
      }
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === ' ') {
      if (lastWasQuoted || current.length > 0) {
        words.push(current);
        current = '';
      }
    } else {
      current += ch;
    }
    lastWasQuoted = false;
  }
  if (quote) throw new CommandLineError('unbalanced quotes in the command line of the rule', line);
  if (lastWasQuoted || current.length > 0) words.push(current);
  return words;
}

/**
 * The failure of a task whose command line cannot be split: the line goes to this host's log
 * (credentials masked), the partner is told the problem only (issue 32: it was shown the line).
 */
export function commandLineFailure(type: string, err: CommandLineError, logger: TaskLogger, code: ErrorCodeInfo = ErrorCode.ExternalOp): TaskResult {
  logger.warn(`${type}: ${err.message}: ${maskTaskArgument(err.line)}`);
  return failure(`${type}: ${err.message}; the line is in the log of the host that ran it`, code);
}
