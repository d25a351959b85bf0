// Reading XML the way the original loader does (config.md §1): DOCTYPE refused, declared
// encoding honoured, elements looked up by plain name (first occurrence wins), unknown elements
// ignored, text whitespace folded. The result is a small tree that remembers line numbers so
// errors can point at the element.
import { readFile } from 'node:fs/promises';
import { TextDecoder } from 'node:util';
import { XMLValidator } from 'fast-xml-parser';
import { ConfigError, describeIoError } from './errors.js';

/** One element of a parsed file. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** All text below this element (like DOM textContent), not yet normalised. */
  rawText: string;
  /** 1-based line of the start tag, when known. */
  line: number | undefined;
}

/** A parsed file: its name (for messages) and root element. */
export interface XmlDocument {
  file: string;
  root: XmlElement;
}

/** Folds every whitespace run to one space and trims (config.md §1.2). */
export function normaliseText(text: string): string {
  return text.replace(/[ \t\r\n]+/g, ' ').trim();
}

/** Reads and parses `file`; `expectedRoots` lists the accepted root element names. */
export async function readXmlFile(file: string, expectedRoots: readonly string[]): Promise<XmlDocument> {
  return parseXml(file, await readBytes(file), expectedRoots);
}

/**
 * Reads `file` and hands out the children of its root one at a time, each complete with its
 * descendants, without keeping them: the memory of a partner file with 100,000 entries stays that
 * of its text and of one entry. `root` has no children (and no text) in this mode.
 */
export async function streamXmlFile(file: string, expectedRoots: readonly string[]): Promise<{ root: XmlElement; children: Iterable<XmlElement> }> {
  const text = checkedText(file, await readBytes(file));
  const events = scanElements(file, text, false);
  const root = rootOf(file, events, expectedRoots);
  return {
    root,
    children: {
      [Symbol.iterator]: function* () {
        for (let e = events.next(); e.done !== true; e = events.next()) yield e.value;
      },
    },
  };
}

async function readBytes(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    throw new ConfigError(describeIoError(err), { file });
  }
}

/** Parses XML bytes already in memory; `file` is only used in messages. */
export function parseXml(file: string, bytes: Buffer | string, expectedRoots: readonly string[]): XmlDocument {
  const events = scanElements(file, checkedText(file, bytes), true);
  const root = rootOf(file, events, expectedRoots);
  for (let e = events.next(); e.done !== true; e = events.next()) root.children.push(e.value);
  return { file, root };
}

/** Decoded text of a well-formed document without DOCTYPE; a ConfigError otherwise. */
function checkedText(file: string, bytes: Buffer | string): string {
  const text = typeof bytes === 'string' ? bytes : decode(file, bytes);
  refuseDoctype(file, text);
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: true });
  if (valid !== true) {
    // The validator reports elements left open as `Invalid '["a","b"]' found.` at line 1.
    const open = /^Invalid '(\[[\s\S]*\])' found\.$/.exec(valid.err.msg)?.[1];
    if (open !== undefined) {
      const names = (JSON.parse(open) as string[]).map((n) => `<${n}>`).join(', ');
      throw new ConfigError(`malformed XML: the file ends with ${names} not closed; expected the closing tag of each`, { file, line: text.split('\n').length });
    }
    throw new ConfigError(`malformed XML: ${valid.err.msg}`, { file, line: valid.err.line });
  }
  // XML line-end handling: CR LF and lone CR are read as LF, in text and attribute values alike.
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** The first event of scanElements (the root, before its children), checked against `expectedRoots`. */
function rootOf(file: string, events: Generator<XmlElement, void, undefined>, expectedRoots: readonly string[]): XmlElement {
  const first = events.next();
  if (first.done === true) throw new ConfigError('no root element', { file });
  const root = first.value;
  if (!expectedRoots.includes(root.name)) {
    throw new ConfigError(`root element is <${root.name}>, expected ${expectedRoots.map((r) => `<${r}>`).join(' or ')}`, { file, element: root.name, line: root.line });
  }
  return root;
}

// One token of a well-formed document: comment, CDATA (1), processing instruction, other `<!`
// declaration, end tag (2), start or empty tag (3 name, 4 attributes, 5 `/`), or text. Native
// regular expressions over the whole text: fast-xml-parser's character loop took 24 s (and 600 MB)
// for a 22 MB authent.xml.
const TOKEN = /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<\?[\s\S]*?\?>|<!(?:[^>"']|"[^"]*"|'[^']*')*>|<\/([^\s>]+)\s*>|<([^\s/>!?]+)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>|[^<]+/y;
const ATTRIBUTE = /([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const ENTITY = /&(?:(lt|gt|amp|quot|apos)|#(\d+)|#x([0-9a-fA-F]+));/g;
const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Character and predefined entity references replaced; any other `&name;` is kept as written. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name !== undefined) return NAMED[name] ?? whole;
    const code = dec !== undefined ? Number(dec) : parseInt(hex ?? '', 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function attributesOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(ATTRIBUTE)) out[m[1] as string] = decodeEntities(m[2] ?? m[3] ?? '');
  return out;
}

/**
 * Yields the root element first (children not yet read), then each child of the root once it is
 * complete. With `keepRootText` the root's rawText collects its text (parseXml); without it the
 * root holds nothing of what was yielded (streaming).
 */
function* scanElements(file: string, text: string, keepRootText: boolean): Generator<XmlElement, void, undefined> {
  const stack: XmlElement[] = [];
  let line = 1;
  let counted = 0;
  const lineAt = (index: number): number => {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
    counted = index;
    return line;
  };
  const addText = (value: string): void => {
    const parent = stack.at(-1);
    if (parent !== undefined && (stack.length > 1 || keepRootText)) parent.rawText += value;
  };
  // A regular expression of its own: scans interleave when a consumer awaits between two children.
  const token = new RegExp(TOKEN);
  while (token.lastIndex < text.length) {
    const at = token.lastIndex;
    const m = token.exec(text);
    if (m === null) throw new ConfigError('malformed XML', { file, line: lineAt(at) });
    const [whole, cdata, endName, startName, attrs, empty] = m;
    if (cdata !== undefined) addText(cdata);
    else if (startName !== undefined) {
      const element: XmlElement = { name: startName, attributes: attributesOf(attrs ?? ''), children: [], rawText: '', line: lineAt(at) };
      stack.push(element);
      if (stack.length === 1) yield element;
      if (empty === '/') yield* closeElement(stack, keepRootText);
    } else if (endName !== undefined) yield* closeElement(stack, keepRootText);
    else if (!whole.startsWith('<')) addText(decodeEntities(whole));
    // The root closed: what follows it can only be comments and whitespace.
    if (stack.length === 0 && (startName !== undefined || endName !== undefined)) return;
  }
}

/** Pops the innermost element into its parent; a child of the root is yielded instead. */
function* closeElement(stack: XmlElement[], keepRootText: boolean): Generator<XmlElement, void, undefined> {
  const element = stack.pop() as XmlElement;
  const parent = stack.at(-1);
  if (parent === undefined) return;
  if (stack.length === 1) {
    if (keepRootText) parent.rawText += element.rawText;
    yield element;
    return;
  }
  parent.children.push(element);
  parent.rawText += element.rawText;
}

/** Honours the XML declaration's encoding (rule files often say ISO-8859-1); default UTF-8. */
function decode(file: string, bytes: Buffer): string {
  let body = bytes;
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) body = body.subarray(3);
  const head = body.subarray(0, 200).toString('latin1');
  const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1];
  const label = declared ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new ConfigError(`unsupported encoding "${label}" in the XML declaration`, { file, line: 1 });
  }
  try {
    return decoder.decode(body);
  } catch {
    throw new ConfigError(`the file is not valid ${label} text`, { file });
  }
}

/**
 * The original parser forbids DOCTYPE declarations (protection against entity expansion and
 * external DTDs), so a file with one fails to load. Only the prolog can hold one.
 */
function refuseDoctype(file: string, text: string): void {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i] ?? '')) i++;
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i);
      if (end === -1) return;
      i = end + 2;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i);
      if (end === -1) return;
      i = end + 3;
    } else if (text.startsWith('<!', i) && text.slice(i + 2, i + 9).toUpperCase() === 'DOCTYPE') {
      throw new ConfigError('DOCTYPE declarations are not allowed (remove the <!DOCTYPE ...> line)', { file, line: text.slice(0, i).split('\n').length });
    } else {
      return;
    }
  }
}

/** First child named `name` (document order wins over later duplicates). */
export function firstChild(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((c) => c.name === name);
}

/** Every child named `name`, in document order. */
export function childrenNamed(el: XmlElement | undefined, name: string): XmlElement[] {
  return el === undefined ? [] : el.children.filter((c) => c.name === name);
}
