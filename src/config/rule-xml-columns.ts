// Database encodings of a rule's host list and task lists (database.md §4.2): compact XML
// without declaration or whitespace. We escape what we write (the original does not, and then
// cannot read its own rows back), and read strictly first, leniently on failure, so old rows
// with a raw `&` or `<` in a task path still load.
import type { RuleTask } from '../model/rule.js';
import { parseJavaLong } from './values.js';
import { firstChild, childrenNamed, normaliseText, parseXml, type XmlElement } from './xml-read.js';
import { compactToString, el, section } from './xml-write.js';

/** `<hostids><hostid>a</hostid>...</hostids>` (`<hostids></hostids>` = every partner). */
export function encodeHostIds(hostIds: readonly string[]): string {
  return compactToString(section('hostids', hostIds.flatMap((h) => el('hostid', h))));
}

/** `<tasks><task><type>..</type><path>..</path><delay>..</delay></task>...</tasks>`. */
export function encodeTasks(tasks: readonly RuleTask[]): string {
  return compactToString(section('tasks', tasks.map((t) => section('task', [
    { name: 'type', text: t.type }, { name: 'path', text: t.path }, { name: 'delay', text: String(t.delay) },
  ]))));
}

function strictRoot(text: string, rootName: string): XmlElement | undefined {
  try {
    const doc = parseXml('(database column)', text, [rootName]);
    return doc.root;
  } catch {
    return undefined;
  }
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Replaces the five XML entities and numeric references; anything else is left as is. */
export function unescapeLenient(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_m, ent: string) => {
    if (ent.startsWith('#x')) return String.fromCodePoint(parseInt(ent.slice(2), 16));
    if (ent.startsWith('#')) return String.fromCodePoint(parseInt(ent.slice(1), 10));
    return XML_ENTITIES[ent] ?? _m;
  });
}

/** Contents of every `<name>...</name>` inside `text`, in order (lenient reader). */
function lenientAll(text: string, name: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'g');
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push(m[1] ?? '');
  return out;
}

/** Reads a HOSTIDS column value; empty or NULL means no restriction. */
export function decodeHostIds(text: string | null | undefined): string[] {
  if (text === null || text === undefined || text.trim() === '') return [];
  const root = strictRoot(text, 'hostids');
  const values = root !== undefined ? childrenNamed(root, 'hostid').map((h) => normaliseText(h.rawText)) : lenientAll(text, 'hostid').map((v) => normaliseText(unescapeLenient(v)));
  return values.filter((v) => v !== '');
}

/**
 * Reads a task-list column value; empty or NULL means no task. `defaultDelay` applies when a
 * task has no usable delay.
 */
export function decodeTasks(text: string | null | undefined, defaultDelay = 0): RuleTask[] {
  if (text === null || text === undefined || text.trim() === '') return [];
  const root = strictRoot(text, 'tasks');
  if (root !== undefined) {
    return childrenNamed(root, 'task').flatMap((t) => {
      const type = firstChild(t, 'type');
      const path = firstChild(t, 'path');
      if (type === undefined) return [];
      const delay = firstChild(t, 'delay');
      return [{ type: normaliseText(type.rawText).toUpperCase(), path: path === undefined ? '' : normaliseText(path.rawText), delay: (delay === undefined ? undefined : parseJavaLong(normaliseText(delay.rawText))) ?? defaultDelay }];
    });
  }
  return lenientAll(text, 'task').flatMap((body) => {
    const type = lenientAll(body, 'type')[0];
    if (type === undefined) return [];
    // A raw path may itself contain `<`: take everything between <path> and the last </path>.
    const pStart = body.indexOf('<path>');
    const pEnd = body.lastIndexOf('</path>');
    const path = pStart !== -1 && pEnd > pStart ? body.slice(pStart + 6, pEnd) : '';
    const delay = lenientAll(body, 'delay')[0];
    return [{ type: normaliseText(unescapeLenient(type)).toUpperCase(), path: normaliseText(unescapeLenient(path)), delay: (delay === undefined ? undefined : parseJavaLong(delay.trim())) ?? defaultDelay }];
  });
}
