/**
 * Splits a command line into words the way pipeline B does (tasks.md §5, Apache Commons Exec
 * semantics): spaces separate words; a part enclosed in double or single quotes may contain
 * spaces and loses its quotes; `""` gives an empty word. No other shell syntax exists: no
 * escapes, globbing, pipes or variables, which is what keeps file names from injecting anything.
 */

export class CommandLineError extends Error {}

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
  if (quote) throw new CommandLineError(`unbalanced quotes in command line: ${line}`);
  if (lastWasQuoted || current.length > 0) words.push(current);
  return words;
}
