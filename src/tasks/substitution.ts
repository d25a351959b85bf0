/**
 * The two argument pipelines of tasks.md §5.
 *
 * A ("replace then format"): markers removed, `#VARIABLES#` replaced, then Java-formatted with the
 * words of the transfer information. B ("format then token substitution", EXEC family, TRANSFER):
 * formatted first, split into words, and only then are variables inserted, so a value with spaces
 * (a file name) stays one argument and can never add arguments of its own.
 */
import type { TaskContext } from './context.js';
import { splitCommandLine } from './command-line.js';
import { JavaFormatError, javaFormat } from './java-format.js';
import { MARKERS, variableValues } from './variables.js';

/** Every run of white space becomes one space (done before anything else, §5). */
export function normalizeSpaces(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** Java's `String.split(" ")`: trailing empty words dropped, an empty string gives [""]. */
export function javaSplitOnSpace(text: string): string[] {
  if (!text.includes(' ')) return [text];
  const parts = text.split(' ');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * Replaces every known `#NAME#` in one left-to-right pass. Inserted values are never scanned
 * again (the original repeats until none is left and loops forever on self-containing values).
 * An unknown `#NAME#` is kept and scanning resumes just after its first `#`, so `#X#RULE#` still
 * finds `#RULE#` as a plain replace-all would.
 */
export function replaceVariables(text: string, values: ReadonlyMap<string, string>): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const hash = text.indexOf('#', i);
    if (hash < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, hash);
    const end = text.indexOf('#', hash + 1);
    const name = end > hash ? text.slice(hash + 1, end) : '';
    const value = /^[A-Z]+$/.test(name) ? values.get(name) : undefined;
    if (value !== undefined) {
      out += value;
      i = end + 1;
    } else {
      out += '#';
      i = hash + 1;
    }
  }
  return out;
}

/** The transfer information words used as format arguments, or null when there is no record. */
function formatArguments(ctx: TaskContext): string[] | null {
  if (!ctx.transfer) return null;
  return javaSplitOnSpace(normalizeSpaces(ctx.transfer.fileInfo));
}

/** Step A3 / B1: format, or keep the text as is when Java's Formatter would throw. */
export function formatWithInfo(text: string, ctx: TaskContext, inserted?: (text: string) => string): string {
  const args = formatArguments(ctx);
  if (args === null) return text;
  try {
    return javaFormat(text, args, inserted);
  } catch (err) {
    if (!(err instanceof JavaFormatError)) throw err;
    ctx.logger.debug(`task argument not formatted (${err.message}); used as is`);
    return text;
  }
}

export interface PipelineAResult {
  text: string;
  noWait: boolean;
  localExec: boolean;
}

/** Pipeline A on a raw rule argument. */
export function pipelineA(argument: string, ctx: TaskContext): PipelineAResult {
  let text = normalizeSpaces(argument);
  const noWait = text.includes('#NOWAIT#');
  const localExec = text.includes('#LOCALEXEC#');
  for (const marker of MARKERS) text = text.split(`#${marker}#`).join('');
  text = replaceVariables(text, variableValues(ctx));
  return { text: formatWithInfo(text, ctx), noWait, localExec };
}

export interface PipelineBResult {
  /** Words after substitution; the first is the program for the EXEC family. */
  words: string[];
  noWait: boolean;
  localExec: boolean;
}

const MARKER_WORDS = new Set(MARKERS.map((m) => `\${${m}}`));

/**
 * The characters of the transfer information that would be syntax once formatted into the line
 * (quotes of the word split, `#`/`$` of the variables), each held by a private-use character while
 * the line is split and given back in the words: a partner's `-info` with a `"` neither breaks the
 * rule's command line nor adds or merges arguments, nor names a variable (issue 32).
 */
const HELD = ['"', "'", '#', '$'] as const;
const HOLDER = (i: number): string => String.fromCharCode(0xe000 + i);
const holdSyntax = (text: string): string => text.replace(/["'#$]/g, (c) => HOLDER(HELD.indexOf(c as (typeof HELD)[number])));
const HELD_OR_VARIABLE = /\$\{([^}]+)\}|[\ue000-\ue003]/g;

/** Pipeline B on a raw rule argument. Throws CommandLineError on unbalanced quotes (of the rule's own text). */
export function pipelineB(argument: string, ctx: TaskContext): PipelineBResult {
  const formatted = formatWithInfo(normalizeSpaces(argument), ctx, holdSyntax);
  const noWait = formatted.includes('#NOWAIT#');
  const localExec = formatted.includes('#LOCALEXEC#');
  const line = formatted.replace(/#([A-Z]+)#/g, '${$1}');
  const values = variableValues(ctx);
  for (const m of MARKERS) values.set(m, '');
  const words: string[] = [];
  for (const word of splitCommandLine(line)) {
    // A marker alone is a switch, not an argument: it must not leave an empty argument behind.
    if (MARKER_WORDS.has(word)) continue;
    // One pass: variable values go in as they are, held characters come back; neither is scanned again.
    words.push(word.replace(HELD_OR_VARIABLE, (whole, name: string | undefined) => (name === undefined ? HELD[whole.charCodeAt(0) - 0xe000]! : values.get(name) ?? whole)));
  }
  return { words, noWait, localExec };
}
