// Rule files (config.md §6): `*.rule.xml` (root `rule`) and `*.rules.xml` (root `rules`), and a
// directory of them. A rule without idrule or mode, or an unreadable file, aborts the load;
// unknown task types are skipped with a warning.
import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { TransferMode, type Rule, type RuleTask } from '../model/rule.js';
import { ConfigError, describeIoError } from './errors.js';
import { SectionReader } from './values.js';
import { readXmlFile } from './xml-read.js';
import { el, section, writeXmlFile, type XmlOut } from './xml-write.js';

/** Task types the original accepts, extension (S3) types included (config.md §6.4). */
export const TASK_TYPES: ReadonlySet<string> = new Set([
  'LOG', 'SNMP', 'MOVE', 'MOVERENAME', 'COPY', 'COPYRENAME', 'LINKRENAME', 'RENAME', 'DELETE', 'VALIDFILEPATH', 'EXEC', 'EXECMOVE',
  'EXECOUTPUT', 'EXECJAVA', 'RESTART', 'TRANSFER', 'RESCHEDULE', 'FTP', 'TAR', 'ZIP', 'TRANSCODE', 'UNZEROED', 'CHKFILE', 'CHMOD', 'ICAP',
  'COMPRESS', 'EXTENDED', 'S3GET', 'S3GETDELETE', 'S3DELETE', 'S3PUT', 'S3PUTR66DELETE',
]);

/** Context a rule load may use. */
export interface RuleLoadOptions {
  /** Canonical serverhome: absolute rule paths inside it become relative; outside ones are refused. */
  serverHome?: string;
  /** Delay of tasks without `<delay>` (the server's `limit/timeoutcon`); default 30000. */
  defaultTaskDelay?: number;
  /** Receives non-fatal remarks (skipped tasks). */
  onWarning?: (message: string) => void;
  /** Types added by task plug-ins (extendTaskFactory), accepted besides TASK_TYPES. */
  acceptsTaskType?: (type: string) => boolean;
}

const TASK_LISTS = [
  ['rpretasks', 'rPreTasks'], ['rposttasks', 'rPostTasks'], ['rerrortasks', 'rErrorTasks'],
  ['spretasks', 'sPreTasks'], ['sposttasks', 'sPostTasks'], ['serrortasks', 'sErrorTasks'],
] as const;
const PATHS = [['recvpath', 'recvPath'], ['sendpath', 'sendPath'], ['archivepath', 'archivePath'], ['workpath', 'workPath']] as const;

/** Reads one rule file (either root); returns its rules in document order. */
export async function loadRuleFile(file: string, options: RuleLoadOptions = {}): Promise<Rule[]> {
  const path = resolve(file);
  const doc = await readXmlFile(path, ['rule', 'rules']);
  const root = new SectionReader(path, doc.root, doc.root.name, options.onWarning);
  const sections = doc.root.name === 'rule' ? [root] : root.sections('rule');
  const rules: Rule[] = [];
  for (const sec of sections) rules.push(await readRule(sec, options));
  return rules;
}

/**
 * Every `*.rule.xml` then every `*.rules.xml` directly in `dir` (not recursive), each group in
 * name order. The first bad file aborts the load.
 */
export async function loadRuleDirectory(dir: string, options: RuleLoadOptions = {}): Promise<Rule[]> {
  const path = resolve(dir);
  let names: string[];
  try {
    names = (await readdir(path, { withFileTypes: true })).filter((d) => d.isFile() || d.isSymbolicLink()).map((d) => d.name).sort();
  } catch (err) {
    throw new ConfigError(`rule directory ${describeIoError(err)}`, { file: path });
  }
  const ordered = [...names.filter((n) => n.endsWith('.rule.xml')), ...names.filter((n) => n.endsWith('.rules.xml'))];
  const rules: Rule[] = [];
  for (const name of ordered) rules.push(...(await loadRuleFile(join(path, name), options)));
  return rules;
}

async function readRule(sec: SectionReader, options: RuleLoadOptions): Promise<Rule> {
  const idRule = sec.required('idrule', 'the rule name');
  const modeText = sec.string('mode');
  if (modeText === undefined || modeText === '') throw sec.error('mode', `rule ${idRule}: missing <mode>; expected a transfer mode 1..8`);
  const mode = sec.optionalInt('mode');
  if (mode === undefined || mode < 1 || mode > 8) throw sec.error('mode', `rule ${idRule}: "${modeText}" is not a transfer mode; expected 1..8`);
  const rule: Rule = {
    idRule, hostIds: sec.section('hostids').strings('hostid').filter((h) => h !== ''), mode: mode as TransferMode,
    recvPath: '', sendPath: '', archivePath: '', workPath: '',
    rPreTasks: [], rPostTasks: [], rErrorTasks: [], sPreTasks: [], sPostTasks: [], sErrorTasks: [], updatedInfo: 0,
  };
  for (const [element, prop] of PATHS) rule[prop] = await rulePath(sec, element, idRule, options.serverHome);
  for (const [element, prop] of TASK_LISTS) rule[prop] = readTasks(sec.section(element).section('tasks'), idRule, options);
  return rule;
}

/** `/`+value with `//` and backslash runs collapsed; '' when absent (= the global directory). */
async function rulePath(sec: SectionReader, element: string, idRule: string, serverHome: string | undefined): Promise<string> {
  const value = sec.nonEmpty(element);
  if (value === undefined) return '';
  if (serverHome !== undefined && isAbsolute(value) && (await stat(value).then((s) => s.isDirectory(), () => false))) {
    const inside = relative(serverHome, await realpath(value));
    if (inside.startsWith('..') || isAbsolute(inside)) throw sec.error(element, `rule ${idRule}: directory ${value} lies outside serverhome ${serverHome}`);
    return normaliseVirtual(inside);
  }
  return normaliseVirtual(value);
}

/** Normalises a rule path to the virtual form stored in the database (`/out/partnerA`). */
export function normaliseVirtual(value: string): string {
  return `/${value}`.replace(/\\+/g, '\\').replace(/\/{2,}/g, '/');
}

function readTasks(sec: SectionReader, idRule: string, options: RuleLoadOptions): RuleTask[] {
  const tasks: RuleTask[] = [];
  for (const t of sec.sections('task')) {
    const type = (t.string('type') ?? '').toUpperCase();
    const where = `${t.file}:${t.lineOf() ?? '?'}: rule ${idRule}`;
    if (!TASK_TYPES.has(type) && !options.acceptsTaskType?.(type)) { options.onWarning?.(`${where}: task skipped: unknown type "${type}"`); continue; }
    const path = t.string('path');
    if (path === undefined) { options.onWarning?.(`${where}: ${type} task skipped: missing <path>`); continue; }
    const task: RuleTask = { type, path, delay: t.long('delay', options.defaultTaskDelay ?? 30000) };
    const rank = t.optionalInt('rank');
    if (rank !== undefined) task.rank = rank;
    const comment = t.nonEmpty('comment');
    if (comment !== undefined) task.comment = comment;
    tasks.push(task);
  }
  return tasks;
}

/** The `<rule>` element of one rule (paths written without their leading `/`). */
export function ruleToXml(rule: Rule): XmlOut {
  const path = (name: string, v: string) => el(name, v === '' ? undefined : v.replace(/^\/+/, ''));
  return section('rule', [
    ...el('idrule', rule.idRule),
    section('hostids', rule.hostIds.flatMap((h) => el('hostid', h))),
    ...el('mode', rule.mode),
    ...PATHS.flatMap(([element, prop]) => path(element, rule[prop])),
    ...TASK_LISTS.map(([element, prop]) => section(element, [section('tasks', rule[prop].map((t) => section('task', [
      { name: 'type', text: t.type }, { name: 'path', text: t.path }, ...el('delay', t.delay), ...el('rank', t.rank), ...el('comment', t.comment),
    ])))])),
  ]);
}

/**
 * Writes rules atomically: a `*.rule.xml` file holding exactly one rule gets root `rule`,
 * anything else root `rules`.
 */
export async function writeRuleFile(file: string, rules: Rule | readonly Rule[]): Promise<void> {
  const list: readonly Rule[] = Array.isArray(rules) ? rules : [rules as Rule];
  const single = list.length === 1 && file.endsWith('.rule.xml');
  await writeXmlFile(file, single ? ruleToXml(list[0] as Rule) : section('rules', list.map(ruleToXml)));
}
