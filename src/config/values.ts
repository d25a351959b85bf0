// Typed access to the elements of one section, with the original's conversion rules
// (config.md §1.3): unconvertible numbers count as absent, booleans are `1`/`true` only.
import { ConfigError } from './errors.js';
import { checkRange, configRange, CONFIG_RANGES, PORT, PORT_OR_OFF, type NumberRange } from './ranges.js';
import { childrenNamed as childrenNamedOf, firstChild as firstChildOf, normaliseText, type XmlElement } from './xml-read.js';

/**
 * Elements a SectionReader looked up, and those read as a whole (their text): after a file is
 * loaded, the elements in neither are named as not acted on (issue 34 item 5, unreadElements).
 */
const lookedUp = new WeakSet<XmlElement>();
const readWhole = new WeakSet<XmlElement>();

function firstChild(el: XmlElement | undefined, name: string): XmlElement | undefined {
  const child = firstChildOf(el, name);
  if (child !== undefined) lookedUp.add(child);
  return child;
}

function childrenNamed(el: XmlElement | undefined, name: string): XmlElement[] {
  const children = childrenNamedOf(el, name);
  for (const c of children) lookedUp.add(c);
  return children;
}

function textOf(child: XmlElement): string {
  readWhole.add(child);
  return normaliseText(child.rawText);
}

/** Elements the original's files carry for people, not programs (its samples' `<comment>`). */
const FOR_PEOPLE = new Set(['comment']);

/**
 * The elements below `el` that no SectionReader looked up, as `section/element` paths (outermost
 * only: below an element not looked up, nothing more is named; below one read as text, nothing).
 */
export function unreadElements(el: XmlElement, prefix = ''): string[] {
  const out: string[] = [];
  for (const c of el.children) {
    const path = prefix === '' ? c.name : `${prefix}/${c.name}`;
    if (FOR_PEOPLE.has(c.name)) continue;
    if (!lookedUp.has(c)) out.push(path);
    else if (!readWhole.has(c)) out.push(...unreadElements(c, path));
  }
  return out;
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** Java `Integer.parseInt` syntax (optional sign, decimal digits, 32-bit); undefined otherwise. */
export function parseJavaInt(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= INT_MIN && value <= INT_MAX ? value : undefined;
}

/** Java `Long.parseLong` syntax (64-bit). Values beyond 2^53 lose precision as numbers. */
export function parseJavaLong(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value >= LONG_MIN && value <= LONG_MAX ? Number(value) : undefined;
}

/** Java `Double.parseDouble` syntax (decimal, exponent, optional d/f suffix, NaN, Infinity). */
export function parseJavaDouble(text: string): number | undefined {
  const m = /^([+-]?)(NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[dDfF]?$/.exec(text);
  if (m === null) return undefined;
  if (m[2] === 'NaN') return NaN;
  return Number(`${m[1]}${m[2]}`);
}

/** `1` or any case of `true` is true; everything else (including empty) is false. */
export function parseJavaBoolean(text: string): boolean {
  return text === '1' || text.toLowerCase() === 'true';
}

/** Reader over one section element of a file; every getter takes the child element's name. */
export class SectionReader {
  constructor(
    readonly file: string,
    /** The section element, undefined when absent (then every child is absent). */
    readonly element: XmlElement | undefined,
    /** Path of the section for messages, e.g. `config/server`. */
    readonly path: string,
    /** Receives remarks that do not stop the load (a number element holding text). */
    readonly warn?: (message: string) => void,
  ) {}

  get present(): boolean {
    return this.element !== undefined;
  }

  /** A child section (absent when this one is). */
  section(name: string): SectionReader {
    return new SectionReader(this.file, firstChild(this.element, name), `${this.path}/${name}`, this.warn);
  }

  /** Every child named `name` as a section, in document order. */
  sections(name: string): SectionReader[] {
    return childrenNamed(this.element, name).map((e) => new SectionReader(this.file, e, `${this.path}/${name}`, this.warn));
  }

  has(name: string): boolean {
    return firstChild(this.element, name) !== undefined;
  }

  /** Normalised text of the first child `name`, undefined when absent. */
  string(name: string): string | undefined {
    const child = firstChild(this.element, name);
    return child === undefined ? undefined : textOf(child);
  }

  /** Normalised text of every child `name`. */
  strings(name: string): string[] {
    return childrenNamed(this.element, name).map(textOf);
  }

  /** Non-empty string or undefined (empty elements count as absent for optional paths/ids). */
  nonEmpty(name: string): string | undefined {
    const v = this.string(name);
    return v === undefined || v === '' ? undefined : v;
  }

  /** Mandatory non-empty string: a ConfigError naming the element otherwise. */
  required(name: string, expected: string): string {
    const v = this.nonEmpty(name);
    if (v === undefined) throw this.error(name, `missing or empty; expected ${expected}`);
    return v;
  }

  boolean(name: string, fallback: boolean): boolean {
    const v = this.string(name);
    return v === undefined ? fallback : parseJavaBoolean(v);
  }

  /** 32-bit integer within the range table's entry (ranges.ts); absent or empty: `fallback`. */
  int(name: string, fallback: number): number {
    return this.optionalNumber(name, 'int') ?? fallback;
  }

  /**
   * A TCP port: an integer within its entry of the range table (0..65535, or -1..65535 where a
   * negative value turns the listener off); beyond it an error naming the element, where the
   * original only failed later, when binding.
   */
  port(name: string, fallback: number, negativeOff = false): number {
    return this.optionalNumber(name, 'int', negativeOff ? PORT_OR_OFF : PORT) ?? fallback;
  }

  long(name: string, fallback: number): number {
    return this.optionalNumber(name, 'long') ?? fallback;
  }

  double(name: string, fallback: number): number {
    return this.optionalNumber(name, 'double') ?? fallback;
  }

  /** Integer or undefined when absent, empty or not a number. */
  optionalInt(name: string): number | undefined {
    return this.optionalNumber(name, 'int');
  }

  /**
   * The number in child `name`, checked against `<section>/<name>` of the range table (else
   * `fallbackRange`, else its type's whole range). Absent or empty: undefined. Text that is not a
   * number at all (`1GB`) is treated as absent, as the original does, with a warning; a number of
   * the wrong kind or out of range is a ConfigError naming the element and the range.
   */
  private optionalNumber(name: string, kind: 'int' | 'long' | 'double', fallbackRange?: NumberRange): number | undefined {
    const text = this.string(name);
    if (text === undefined || text === '') return undefined;
    const key = `${this.path.slice(this.path.lastIndexOf('/') + 1)}/${name}`;
    const range = (CONFIG_RANGES as Record<string, NumberRange>)[key] ?? fallbackRange ?? configRange(key, kind);
    const result = checkRange(text, range);
    if (result.ok) return Number(result.value);
    if (!result.notNumber) throw this.error(name, result.message);
    this.warn?.(`${this.file}:${this.lineOf(name) ?? '?'}: <${this.path}/${name}> ${result.message}; the default applies`);
    return undefined;
  }

  /** Line of the child `name` (or of the section when the child is absent). */
  lineOf(name?: string): number | undefined {
    if (name === undefined) return this.element?.line;
    return firstChild(this.element, name)?.line ?? this.element?.line;
  }

  /** A ConfigError located at child `name` of this section. */
  error(name: string | undefined, detail: string): ConfigError {
    return new ConfigError(detail, { file: this.file, element: name === undefined ? this.path : `${this.path}/${name}`, line: this.lineOf(name) });
  }
}

/** Splits on whitespace or `|` (roles, aliases, REST function names: config.md T4). */
export function splitWords(text: string): string[] {
  return text.split(/[\s|]+/).filter((w) => w !== '');
}

/** Rounds a duration down to a multiple of 10 ms, as the original does for most delays. */
export function round10(ms: number): number {
  return Math.trunc(ms / 10) * 10;
}

/** Values rejected by the original's sanity check (config.md §1.5). */
const FORBIDDEN_SNIPPETS = ['<![CDATA[', '&lt;![CDATA[', '<!ENTITY', '&lt;!ENTITY', '<script>', '&lt;script&gt;'];

/** True when `value` passes the original's sanity check (no control chars, no markup injection). */
export function isSaneValue(value: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value)) return false;
  return !FORBIDDEN_SNIPPETS.some((s) => value.includes(s));
}
