// Reading XML the way the original loader does (config.md §1): DOCTYPE refused, declared
// encoding honoured, elements looked up by plain name (first occurrence wins), unknown elements
// ignored, text whitespace folded. The result is a small tree that remembers line numbers so
// errors can point at the element.
import { readFile } from 'node:fs/promises';
import { TextDecoder } from 'node:util';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
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
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new ConfigError(describeIoError(err), { file });
  }
  return parseXml(file, bytes, expectedRoots);
}

/** Parses XML bytes already in memory; `file` is only used in messages. */
export function parseXml(file: string, bytes: Buffer | string, expectedRoots: readonly string[]): XmlDocument {
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
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    captureMetaData: true,
    trimValues: false,
    parseTagValue: false,
    parseAttributeValue: false,
    htmlEntities: true,
    commentPropName: '#comment',
    cdataPropName: '#cdata',
    processEntities: true,
  });
  const nodes = parser.parse(text) as OrderedNode[];
  const lines = lineStarts(text);
  const roots = nodes.map((n) => toElement(n, lines)).filter((e): e is XmlElement => e !== undefined);
  const root = roots[0];
  if (root === undefined) throw new ConfigError('no root element', { file });
  if (!expectedRoots.includes(root.name)) {
    throw new ConfigError(`root element is <${root.name}>, expected ${expectedRoots.map((r) => `<${r}>`).join(' or ')}`, { file, element: root.name, line: root.line });
  }
  return { file, root };
}

type OrderedNode = Record<string, unknown>;
const META = XMLParser.getMetaDataSymbol() as unknown as symbol;

function toElement(node: OrderedNode, lines: number[]): XmlElement | undefined {
  const name = Object.keys(node).find((k) => k !== ':@' && !k.startsWith('#') && !k.startsWith('?'));
  if (name === undefined) return undefined;
  const content = node[name];
  const attrs = (node[':@'] ?? {}) as Record<string, string>;
  const meta = (node as Record<symbol, { startIndex?: number } | undefined>)[META];
  const element: XmlElement = { name, attributes: { ...attrs }, children: [], rawText: '', line: meta?.startIndex !== undefined ? lineOf(lines, meta.startIndex) : undefined };
  let text = '';
  for (const child of Array.isArray(content) ? (content as OrderedNode[]) : []) {
    if ('#text' in child) text += String(child['#text']);
    else if ('#cdata' in child) text += cdataText(child['#cdata']);
    else if ('#comment' in child) continue;
    else {
      const sub = toElement(child, lines);
      if (sub !== undefined) {
        element.children.push(sub);
        text += sub.rawText;
      }
    }
  }
  element.rawText = text;
  return element;
}

function cdataText(value: unknown): string {
  if (!Array.isArray(value)) return '';
  return (value as OrderedNode[]).map((v) => String(v['#text'] ?? '')).join('');
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], index: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
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
