/**
 * Configuration export and import (spec history.md §5-6): hosts, rules and this server's business,
 * aliases and roles texts, as files on the server. Shared by REST v1 `/config`, REST v2
 * `/v2/server/config` and the CLI `config-export`; the two export flavours differ in directory,
 * file names and layout, the import is the same code with different choices by the caller.
 */
import { XMLValidator } from 'fast-xml-parser';
import { access, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { loadAuthentFile, loadRuleFile, ruleToXml, writeAuthentFile, writeRuleFile, type DirectoryConfig } from '../config/index.js';
import { documentToString, section, el, writeFileAtomic, type XmlOut } from '../config/xml-write.js';
import type { HostConfig } from '../model/host-config.js';
import { CURRENT_SCHEMA_VERSION, type Store } from '../store/index.js';
import { checkRuleTasks, runsTaskType, type TaskRegistry } from '../tasks/index.js';

export type ConfigItem = 'hosts' | 'rules' | 'business' | 'aliases' | 'roles';
export const CONFIG_ITEMS: readonly ConfigItem[] = ['hosts', 'rules', 'business', 'aliases', 'roles'];

export interface ConfigFilesContext {
  store: Store;
  hostId: string;
  /** DES key of the server: hosts files carry encrypted passwords that must fit it. */
  cryptoKey: Buffer;
  /** The server's task types (built-ins and plug-ins) that imported rules are checked against; default the built-ins. */
  tasks?: TaskRegistry;
}

/** A failure the caller reports to the user: a missing file, an unusable file, no host configuration. */
export class ConfigTransferError extends Error {
  /** `file`: the name as the caller gave it (never a resolved server path). */
  constructor(readonly kind: 'file-not-found' | 'invalid' | 'no-host-config' | 'not-allowed', message: string, readonly file?: string) {
    super(message);
    this.name = 'ConfigTransferError';
  }
}

export type ExportedFiles = Partial<Record<ConfigItem, string>>;

function hostConfigText(hc: HostConfig, item: 'business' | 'aliases' | 'roles'): string {
  return hc[item];
}

/**
 * Export of the original's ConfigExport request (history.md §5.1, REST v1): files in `dir`
 * (the archive directory) named `<host>_Authentications.xml`, `<host>.rules.xml`,
 * `<host>_Business.xml`, `<host>_Aliases.xml`, `<host>_Roles.xml`; the three texts only when the
 * host configuration row has one.
 */
export async function exportConfigV1(ctx: ConfigFilesContext, dir: string, items: ReadonlySet<ConfigItem>): Promise<ExportedFiles> {
  const out: ExportedFiles = {};
  if (items.has('hosts')) {
    const file = join(dir, `${ctx.hostId}_Authentications.xml`);
    await writeAuthentFile(file, await ctx.store.hosts.list());
    out.hosts = file;
  }
  if (items.has('rules')) {
    const file = join(dir, `${ctx.hostId}.rules.xml`);
    await writeRuleFile(file, await ctx.store.rules.list());
    out.rules = file;
  }
  const hc = await ctx.store.hostConfigs.get(ctx.hostId);
  const names = { business: 'Business', aliases: 'Aliases', roles: 'Roles' } as const;
  for (const item of ['business', 'aliases', 'roles'] as const) {
    if (!items.has(item) || hc === undefined || hostConfigText(hc, item) === '') continue;
    const file = join(dir, `${ctx.hostId}_${names[item]}.xml`);
    await writeFileAtomic(file, hostConfigText(hc, item));
    out[item] = file;
  }
  return out;
}

/** Pretty-printed without the XML declaration, as the v2 export writes its files. */
function bareDocument(root: XmlOut): string {
  return documentToString(root).replace(/^<\?xml[^>]*\?>\n/, '');
}

/**
 * Export of REST v2 (history.md §5.4): files in `dir` (the configuration directory) named
 * `<host>_hosts.xml`, `<host>_rules.xml`, `<host>_business.xml`, `<host>_aliases.xml`,
 * `<host>_roles.xml`. Hosts and rules need no host configuration row (the original's demand for
 * one is defect V12); the three texts do.
 */
export async function exportConfigV2(ctx: ConfigFilesContext, dir: string, items: ReadonlySet<ConfigItem>): Promise<ExportedFiles> {
  const needsRow = items.has('business') || items.has('aliases') || items.has('roles');
  const hc = needsRow ? await ctx.store.hostConfigs.get(ctx.hostId) : undefined;
  if (needsRow && hc === undefined) throw new ConfigTransferError('no-host-config', `no host configuration for ${ctx.hostId}`);
  const out: ExportedFiles = {};
  if (items.has('hosts')) {
    const hosts = await ctx.store.hosts.list();
    const root = section('authent', hosts.map((h) => section('entry', [
      ...el('hostid', h.hostId), ...el('address', h.address), ...el('port', h.port), ...el('isssl', h.isSsl),
      ...el('isclient', h.isClient), ...el('isproxified', h.isProxified), ...el('admin', h.adminRole), ...el('isactive', h.isActive),
      ...el('key', h.hostKey === null ? undefined : h.hostKey.toString('ascii')),
    ])));
    out.hosts = join(dir, `${ctx.hostId}_hosts.xml`);
    await writeFileAtomic(out.hosts, bareDocument(root), 0o600);
  }
  if (items.has('rules')) {
    out.rules = join(dir, `${ctx.hostId}_rules.xml`);
    await writeFileAtomic(out.rules, bareDocument(section('rules', (await ctx.store.rules.list()).map(ruleToXml))));
  }
  for (const item of ['business', 'aliases', 'roles'] as const) {
    if (!items.has(item) || hc === undefined) continue;
    out[item] = join(dir, `${ctx.hostId}_${item}.xml`);
    await writeFileAtomic(out[item], hostConfigText(hc, item));
  }
  return out;
}

/** One item to import: the server-side file and whether existing entries are replaced. */
export interface ImportSource {
  file: string;
  purge: boolean;
}

export type ImportRequest = Partial<Record<ConfigItem, ImportSource>>;
export type ImportResult = Partial<Record<ConfigItem, { purged: boolean; imported: boolean }>>;

/**
 * The file an import names, resolved: relative to serverhome, then symlinks followed; it must be
 * inside one of the host's directories (in, out, arch, work, conf). The refusal is the same
 * whether or not the file exists, so it tells nothing about the rest of the file system.
 */
async function confined(dirs: DirectoryConfig, file: string): Promise<string> {
  const given = resolve(dirs.serverHome, file);
  const real = await realpath(given).catch(async () => join(await realpath(dirname(given)).catch(() => dirname(given)), basename(given)));
  const roots = await Promise.all([dirs.in, dirs.out, dirs.arch, dirs.work, dirs.conf].map((d) => realpath(d).catch(() => resolve(d))));
  if (!roots.some((root) => real.startsWith(root + sep))) {
    throw new ConfigTransferError('not-allowed', `${file}: not allowed; a configuration file to import must be inside the host's in, out, arch, work or conf directory`, file);
  }
  return real;
}

/**
 * A business, aliases or roles file: XML whose root element is the item's (`<roles>`...), or empty
 * (no entries). Anything else is refused before the column is touched: a text file once wiped
 * the roles.
 */
function checkedText(item: 'business' | 'aliases' | 'roles', file: string, text: string): string {
  const t = text.trim();
  if (t === '') return t;
  const root = /^(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<([A-Za-z_][\w.-]*)/.exec(t)?.[1];
  if (root !== item || /<!DOCTYPE/i.test(t) || XMLValidator.validate(t) !== true) {
    throw new ConfigTransferError('invalid', `${file}: not a ${item} file; expected XML with the root element <${item}>`, file);
  }
  return t;
}

async function mustExist(file: string): Promise<void> {
  try {
    await access(file);
  } catch {
    throw new ConfigTransferError('file-not-found', `file not found: ${file}`);
  }
}

async function load<T>(file: string, loader: () => Promise<T>): Promise<T> {
  await mustExist(file);
  try {
    return await loader();
  } catch (err) {
    throw new ConfigTransferError('invalid', err instanceof Error ? err.message : `cannot read ${file}`);
  }
}

/**
 * A rules file as every rule load reads it: the task types the server runs (its plug-ins included)
 * are kept, a type it cannot run refuses the file (RuleTaskError, tasks.md §11).
 */
async function loadRules(file: string, tasks: TaskRegistry | undefined) {
  const rules = await loadRuleFile(file, tasks ? { acceptsTaskType: runsTaskType(tasks) } : {});
  return rules.map((r) => checkRuleTasks(r, tasks).rule);
}

/**
 * Imports the given items (history.md §6). Hosts and rules: with `purge` every existing entry
 * is deleted first, otherwise entries are inserted or updated; the whole item is one database
 * transaction, so a failure restores the previous entries. Business, aliases and roles: the file
 * text replaces this server's column. Files are all read before anything is changed.
 */
export async function importConfig(ctx: ConfigFilesContext, given: ImportRequest, dirs: DirectoryConfig): Promise<ImportResult> {
  // Every path is checked before any file is read.
  const req: ImportRequest = {};
  for (const item of CONFIG_ITEMS) {
    const src = given[item];
    if (src) req[item] = { ...src, file: await confined(dirs, src.file) };
  }
  const hosts = req.hosts ? (await load(req.hosts.file, () => loadAuthentFile(req.hosts!.file, ctx.cryptoKey))).hosts : undefined;
  const rules = req.rules ? await load(req.rules.file, () => loadRules(req.rules!.file, ctx.tasks)) : undefined;
  const texts: Partial<Record<'business' | 'aliases' | 'roles', string>> = {};
  for (const item of ['business', 'aliases', 'roles'] as const) {
    const src = req[item];
    if (src) texts[item] = checkedText(item, given[item]!.file, await load(src.file, () => readFile(src.file, 'utf8')));
  }
  const result: ImportResult = {};
  await ctx.store.transaction(async (tx) => {
    if (hosts !== undefined && req.hosts) {
      if (req.hosts.purge) for (const h of await tx.hosts.list()) await tx.hosts.delete(h.hostId);
      for (const h of hosts) await tx.hosts.upsert(h);
      result.hosts = { purged: req.hosts.purge, imported: true };
    }
    if (rules !== undefined && req.rules) {
      if (req.rules.purge) for (const r of await tx.rules.list()) await tx.rules.delete(r.idRule);
      for (const r of rules) await tx.rules.upsert(r);
      result.rules = { purged: req.rules.purge, imported: true };
    }
    if (Object.keys(texts).length > 0) {
      const current: HostConfig = (await tx.hostConfigs.get(ctx.hostId)) ?? {
        hostId: ctx.hostId, business: '', roles: '', aliases: '', others: `<root><version>${CURRENT_SCHEMA_VERSION}</version></root>`, updatedInfo: 0,
      };
      await tx.hostConfigs.upsert({ ...current, ...texts });
      for (const item of Object.keys(texts) as Array<'business' | 'aliases' | 'roles'>) result[item] = { purged: req[item]!.purge, imported: true };
    }
  });
  return result;
}

