/**
 * Points the `<db>` section of a server.xml / client.xml at the migrated database. Only the texts of
 * `dbdriver` and `dbserver` change (the rest of the file, comments and layout included, stays as
 * written); the file as it was is kept beside it as `<file>.bak`, the way back.
 */
import { copyFile, readFile, stat, writeFile } from 'node:fs/promises';

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export class DbSectionError extends Error {}

/** `text` with the db section's driver and URL replaced; throws when the file has no db section. */
export function withDbSection(text: string, file: string, driver: string, url: string, note: string): string {
  const section = /<db(\s[^>]*)?>([\s\S]*?)<\/db\s*>/.exec(text);
  if (!section) throw new DbSectionError(`${file}: no <db> section`);
  let inner = section[2] as string;
  const setElement = (name: string, value: string): void => {
    const re = new RegExp(`<${name}(\\s[^>]*)?>[\\s\\S]*?</${name}\\s*>|<${name}(\\s[^>]*)?/>`);
    const element = `<${name}>${escapeXml(value)}</${name}>`;
    inner = re.test(inner) ? inner.replace(re, element) : `${element}${inner}`;
  };
  setElement('dbserver', url);
  setElement('dbdriver', driver);
  const comment = `<!-- ${note.replace(/--/g, '- -')} -->`;
  const rewritten = `<db${section[1] ?? ''}>${comment}${inner}</db>`;
  return text.slice(0, section.index) + rewritten + text.slice(section.index + section[0].length);
}

/** True when the file has a `<db>` section with a `dbdriver` (else it runs without database). */
export function hasDbSection(text: string): boolean {
  return /<db(\s[^>]*)?>[\s\S]*?<dbdriver(\s[^>]*)?>\s*\S[\s\S]*?<\/db\s*>/.test(text);
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

/**
 * Rewrites `file` from `original` (the text as the Java host had it) and keeps that text in
 * `<file>.bak` (written once: a forced second run keeps the first backup, the Java one).
 */
export async function pointDbSection(file: string, original: string, driver: string, url: string, note: string): Promise<void> {
  const updated = withDbSection(original, file, driver, url, note);
  const bak = `${file}.bak`;
  if (!(await exists(bak))) await copyFile(file, bak);
  await writeFile(file, updated);
}

/** The Java host's text of `file`: its `.bak` when a previous run made one, else the file itself. */
export async function originalText(file: string): Promise<{ text: string; fromBackup: boolean }> {
  const bak = `${file}.bak`;
  if (await exists(bak)) return { text: await readFile(bak, 'utf8'), fromBackup: true };
  return { text: await readFile(file, 'utf8'), fromBackup: false };
}
