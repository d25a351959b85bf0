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
import { documentToString, escapeXml, section, el, writeFileAtomic, type XmlOut } from '../config/xml-write.js';
import { unescapeLenient } from '../config/rule-xml-columns.js';
import type { HostConfig } from '../model/host-config.js';
import type { Rule } from '../model/rule.js';
import { UpdatedInfo } from '../model/transfer.js';
import { maskRuleSecrets, maskTaskArgument, MaskedSecretError, restoreMaskedSecrets } from '../model/rule-secrets.js';
import { CURRENT_SCHEMA_VERSION, StoreError, type Store, type TransactionScope } from '../store/index.js';
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
  /** The caller lacks the RULE role: exported rules show their task credentials masked (decision 0038). */
  maskSecrets?: boolean;
}

/** The rules an export writes, as its caller may see them. */
async function exportedRules(ctx: ConfigFilesContext): Promise<Rule[]> {
  const rules = await ctx.store.rules.list();
  return ctx.maskSecrets === true ? rules.map(maskRuleSecrets) : rules;
}

/** A failure the caller reports to the user: a missing file, an unusable file, no host configuration. */
export class ConfigTransferError extends Error {
  /** `file`: the name as the caller gave it (never a resolved server path). */
  /** `refused`: the file is fine but this database cannot take it as asked (a masked credential with nothing stored behind it). */
  constructor(readonly kind: 'file-not-found' | 'invalid' | 'no-host-config' | 'not-allowed' | 'refused', message: string, readonly file?: string) {
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
    await writeRuleFile(file, await exportedRules(ctx));
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

/**
 * The text of a rules file as a caller without RULE may read it: every task `<path>` with its
 * credentials masked. For files written earlier by an export in clear (an archive download).
 */
export function maskRuleFileText(xml: string): string {
  return xml.replace(/<path>([\s\S]*?)<\/path>/g, (_m, v: string) => `<path>${escapeXml(maskTaskArgument(unescapeLenient(v)))}</path>`);
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
    await writeFileAtomic(out.rules, bareDocument(section('rules', (await exportedRules(ctx)).map(ruleToXml))));
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
export type ImportResult = Partial<Record<ConfigItem, { purged: boolean; imported: boolean }>> & {
  /** Rules a purge kept because transfers of the history (RUNNER) still name them; absent when none. */
  keptRules?: string[];
};

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
 * are kept, others are skipped with a warning (tasks.md §1.5).
 */
async function loadRules(file: string, tasks: TaskRegistry | undefined) {
  const rules = await loadRuleFile(file, tasks ? { acceptsTaskType: runsTaskType(tasks) } : {});
  return rules.map((r) => checkRuleTasks(r, tasks).rule);
}

/**
 * Rules of a file into the database. Masked credentials (an export made by a caller without RULE)
 * take the values stored under the same rule, or the import is refused. With `purge`, rules the file
 * does not name are deleted, except those transfers of the history (RUNNER) still name: deleting them
 * would orphan the history, so they are kept and returned (the original deletes them regardless).
 * Rules the file names are updated in place, history or not.
 */
async function importRules(tx: TransactionScope, rules: Rule[], purge: boolean): Promise<string[]> {
  const current = new Map((await tx.rules.list()).map((r) => [r.idRule, r]));
  const incoming = rules.map((r) => restoreMaskedSecrets(r, current.get(r.idRule)));
  const kept: string[] = [];
  if (purge) {
    const given = new Set(incoming.map((r) => r.idRule));
    for (const id of current.keys()) {
      if (given.has(id)) continue;
      if ((await tx.runner.count({ idRule: id })) > 0) kept.push(id);
      else await tx.rules.delete(id);
    }
  }
  for (const r of incoming) await tx.rules.upsert(r);
  return kept;
}

/**
 * Imports the given items (history.md §6). Hosts and rules: with `purge` every existing entry the
 * file does not name is deleted (rules of the history kept, see importRules), the file's entries are
 * inserted or updated in place; the whole import is one database transaction, so a failure
 * restores the previous entries and is reported as ConfigTransferError `refused`. Business,
 * aliases and roles: the file text replaces this server's column. Files are all read before anything is changed.
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
  try {
    await ctx.store.transaction(async (tx) => {
      if (hosts !== undefined && req.hosts) {
        const given = new Set(hosts.map((h) => h.hostId));
        // Purge = what the file does not name goes; what it names is updated in place.
        if (req.hosts.purge) for (const h of await tx.hosts.list()) if (!given.has(h.hostId)) await tx.hosts.delete(h.hostId);
        for (const h of hosts) await tx.hosts.upsert(h);
        result.hosts = { purged: req.hosts.purge, imported: true };
      }
      if (rules !== undefined && req.rules) {
        const kept = await importRules(tx, rules, req.rules.purge);
        if (kept.length > 0) result.keptRules = kept;
        result.rules = { purged: req.rules.purge, imported: true };
      }
      if (Object.keys(texts).length > 0) {
        const current: HostConfig = (await tx.hostConfigs.get(ctx.hostId)) ?? {
          hostId: ctx.hostId, business: '', roles: '', aliases: '', others: `<root><version>${CURRENT_SCHEMA_VERSION}</version></root>`, updatedInfo: 0,
        };
        // UPDATEDINFO 3: the running server (every member of a cluster) applies the new business
        // list, roles and aliases at its next scheduler turn (database.md §9.2; server/transfer-service.ts).
        await tx.hostConfigs.upsert({ ...current, ...texts, updatedInfo: UpdatedInfo.TOSUBMIT });
        for (const item of Object.keys(texts) as Array<'business' | 'aliases' | 'roles'>) result[item] = { purged: req[item]!.purge, imported: true };
      }
    });
  } catch (err) {
    // Refusals the caller answers 4xx with the reason; nothing was changed (the transaction rolled back).
    if (err instanceof MaskedSecretError) throw new ConfigTransferError('refused', `${given.rules?.file ?? 'rules file'}: ${err.message}`);
    if (err instanceof StoreError) throw new ConfigTransferError('refused', `nothing imported: ${err.message}`);
    throw err;
  }
  return result;
}

