// Writing configuration files: a tiny element model, an indented serializer with proper
// escaping, and an atomic file replacement (temp file in the same directory, fsync, rename) so a
// crash never leaves a half-written configuration behind.
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConfigError, describeIoError } from './errors.js';

/** An element to write: text content or children (never both). */
export interface XmlOut {
  name: string;
  text?: string;
  children?: XmlOut[];
  attributes?: Record<string, string>;
}

/** Element with text; `undefined` values produce no element (optional settings left out). */
export function el(name: string, value: string | number | boolean | undefined): XmlOut[] {
  if (value === undefined) return [];
  return [{ name, text: typeof value === 'boolean' ? (value ? 'true' : 'false') : String(value) }];
}

/** Element with children. */
export function section(name: string, children: XmlOut[]): XmlOut {
  return { name, children };
}

/** Escapes text for element content or attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function attrs(a: Record<string, string> | undefined): string {
  if (a === undefined) return '';
  return Object.entries(a).map(([k, v]) => ` ${k}="${escapeXml(v)}"`).join('');
}

function serialise(node: XmlOut, indent: string, out: string[]): void {
  const open = `${indent}<${node.name}${attrs(node.attributes)}`;
  if (node.children !== undefined && node.children.length > 0) {
    out.push(`${open}>`);
    for (const c of node.children) serialise(c, `${indent}  `, out);
    out.push(`${indent}</${node.name}>`);
  } else if (node.text !== undefined && node.text !== '') {
    out.push(`${open}>${escapeXml(node.text)}</${node.name}>`);
  } else {
    out.push(`${open}/>`);
  }
}

/** A whole document: UTF-8 declaration, two-space indentation, final newline. */
export function documentToString(root: XmlOut): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  serialise(root, '', out);
  return `${out.join('\n')}\n`;
}

/** Compact form without declaration or whitespace (database columns, database.md §4.2). */
export function compactToString(node: XmlOut): string {
  const inner = node.children !== undefined ? node.children.map(compactToString).join('') : escapeXml(node.text ?? '');
  return `<${node.name}${attrs(node.attributes)}>${inner}</${node.name}>`;
}

/**
 * Replaces `file` atomically with `data`. `mode` applies to a new file (0o600 for secrets).
 * A failure leaves the previous content in place and reports a ConfigError naming the file.
 */
export async function writeFileAtomic(file: string, data: string | Buffer, mode = 0o644): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw new ConfigError(`cannot be written: ${describeIoError(err).replace('cannot be read', 'I/O error')}`, { file });
  }
}

/** Writes an XML document atomically. */
export async function writeXmlFile(file: string, root: XmlOut, mode?: number): Promise<void> {
  await writeFileAtomic(file, documentToString(root), mode);
}
