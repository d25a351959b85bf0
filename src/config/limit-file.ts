// The bandwidth-limit file of `initdb -limit` (config.md §4.5): root `config`, `identity/hostid`
// and six limits with the same normalisation as server.xml.
import { resolve } from 'node:path';
import { readLimits } from './common-sections.js';
import type { LimitFileConfig } from './types.js';
import { SectionReader } from './values.js';
import { readXmlFile } from './xml-read.js';
import { el, section, writeXmlFile, type XmlOut } from './xml-write.js';

export async function loadLimitFile(file: string): Promise<LimitFileConfig> {
  const path = resolve(file);
  const doc = await readXmlFile(path, ['config']);
  const root = new SectionReader(path, doc.root, 'config');
  const l = readLimits(root.section('limit'));
  return {
    file: path, hostId: root.section('identity').nonEmpty('hostid'), sessionLimit: l.sessionLimit, globalLimit: l.globalLimit,
    delayLimit: l.delayLimit, runLimit: l.runLimit, delayCommand: l.delayCommand, delayRetry: l.delayRetry,
  };
}

export function limitFileToXml(c: LimitFileConfig): XmlOut {
  return section('config', [
    ...(c.hostId === undefined ? [] : [section('identity', el('hostid', c.hostId))]),
    section('limit', [
      ...el('sessionlimit', c.sessionLimit), ...el('globallimit', c.globalLimit), ...el('delaylimit', c.delayLimit),
      ...el('runlimit', c.runLimit), ...el('delaycommand', c.delayCommand), ...el('delayretry', c.delayRetry),
    ]),
  ]);
}

export async function writeLimitFile(file: string, config: LimitFileConfig): Promise<void> {
  await writeXmlFile(file, limitFileToXml(config));
}
