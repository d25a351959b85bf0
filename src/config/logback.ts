// Logback files (config.md §7). The original's logging library is not ours: we locate
// logback-server.xml / logback-client.xml, take the root level and the first plain file
// appender's file, and ignore everything else (appenders, patterns, filters, variables).
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { LogbackConfig } from './types.js';
import { normaliseText, readXmlFile, type XmlElement } from './xml-read.js';

const LEVELS = new Set(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'OFF', 'ALL']);

/** `<confDir>/logback-<role>.xml` when it exists. */
export async function findLogbackFile(confDir: string, role: 'server' | 'client'): Promise<string | undefined> {
  const candidate = resolve(join(confDir, `logback-${role}.xml`));
  return stat(candidate).then((s) => (s.isFile() ? candidate : undefined), () => undefined);
}

function findAll(el: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  for (const c of el.children) {
    if (c.name === name) out.push(c);
    findAll(c, name, out);
  }
  return out;
}

/** Reads what we use of a logback file; a value containing `${...}` variables is not used. */
export async function loadLogbackConfig(file: string): Promise<LogbackConfig> {
  const path = resolve(file);
  const doc = await readXmlFile(path, ['configuration']);
  const rootLogger = doc.root.children.find((c) => c.name === 'root');
  const levelText = rootLogger?.attributes.level ?? rootLogger?.children.find((c) => c.name === 'level')?.attributes.value;
  const level = levelText?.trim().toUpperCase();
  let logFile: string | undefined;
  for (const appender of findAll(doc.root, 'appender')) {
    const f = appender.children.find((c) => c.name === 'file');
    const text = f === undefined ? '' : normaliseText(f.rawText);
    if (text !== '' && !text.includes('${')) { logFile = text; break; }
  }
  return { file: path, level: level !== undefined && LEVELS.has(level) ? level : undefined, logFile };
}
