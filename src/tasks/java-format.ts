/**
 * Java `String.format` for string arguments only, as tasks.md §5 uses it: the arguments are the
 * words of the transfer information, so only conversions that accept a String work (`%s`, `%S`,
 * `%b`, `%h`, plus `%%` and `%n`); anything else is an error exactly where Java throws one, and
 * the caller then keeps the unformatted text.
 */

/** Thrown where Java's Formatter would throw (missing argument, bad specifier). */
export class JavaFormatError extends Error {}

// %[argument_index$][flags][width][.precision]conversion, as java.util.Formatter parses it.
const SPEC = /%(\d+\$)?([-#+ 0,(<]*)?(\d+)?(\.\d+)?([tT])?([a-zA-Z%])/y;

/** Java's String.hashCode, for `%h`. */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

function pad(text: string, width: number | undefined, left: boolean): string {
  if (width === undefined || text.length >= width) return text;
  return left ? text.padEnd(width) : text.padStart(width);
}

/**
 * Formats `format` with string `args`; throws JavaFormatError where Java would throw. `inserted`
 * (default none) rewrites each argument's text as it goes in, before case and padding, so a caller
 * can tell inserted text from the format's own (pipeline B keeps quotes of values from being syntax).
 */
export function javaFormat(format: string, args: readonly string[], inserted: (text: string) => string = (t) => t): string {
  let out = '';
  let ordinary = 0; // index of the next non-indexed argument
  let last = -1; // last argument used, for `%<s`
  let i = 0;
  while (i < format.length) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    SPEC.lastIndex = pct;
    const m = SPEC.exec(format);
    if (!m) throw new JavaFormatError(`bad format specifier at position ${pct} in "${format}"`);
    const [whole, indexPart, flags = '', widthPart, precisionPart, dateMark, conv = ''] = m;
    i = pct + whole.length;
    const width = widthPart !== undefined ? Number(widthPart) : undefined;
    const left = flags.includes('-');
    if (left && width === undefined) throw new JavaFormatError(`missing width with '-' flag in "${whole}"`);
    if (dateMark) throw new JavaFormatError(`date conversion "${whole}" needs a date argument`);
    if (conv === '%') {
      if (precisionPart !== undefined) throw new JavaFormatError(`precision not allowed in "${whole}"`);
      out += pad('%', width, left);
      continue;
    }
    if (conv === 'n') {
      if (flags || width !== undefined || precisionPart !== undefined) throw new JavaFormatError(`"${whole}" takes no flag or width`);
      out += '\n';
      continue;
    }
    let index: number;
    if (flags.includes('<')) index = last;
    else if (indexPart !== undefined) index = Number(indexPart.slice(0, -1)) - 1;
    else index = ordinary++;
    if (index < 0 || index >= args.length) throw new JavaFormatError(`missing argument for "${whole}"`);
    last = index;
    const arg = args[index] ?? '';
    let text: string;
    switch (conv) {
      case 's':
      case 'S':
        text = inserted(arg);
        break;
      case 'b':
      case 'B':
        text = 'true'; // a non-null String argument formats as true
        break;
      case 'h':
      case 'H':
        text = (javaHash(arg) >>> 0).toString(16);
        break;
      default:
        throw new JavaFormatError(`conversion "${whole}" cannot format a text argument`);
    }
    if (flags.replace(/[-<]/g, '') !== '') throw new JavaFormatError(`flags "${flags}" not allowed in "${whole}"`);
    if (precisionPart !== undefined) text = text.slice(0, Number(precisionPart.slice(1)));
    if (conv === conv.toUpperCase()) text = text.toUpperCase();
    out += pad(text, width, left);
  }
  return out;
}
