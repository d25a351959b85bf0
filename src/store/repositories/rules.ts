import type { Selectable } from 'kysely';
import type { Rule, RuleTask } from '../../model/rule.js';
import type { UpdatedInfo } from '../../model/transfer.js';
import { readInt, readText } from '../codec.js';
import type { RulesTable } from '../db-types.js';
import { StoreError } from '../errors.js';
import type { RuleFilter, RuleRepository } from '../repository-types.js';
import { decodeHostIds, decodeTasks, encodeHostIds, encodeTasks } from '../../config/rule-xml-columns.js';
import { executeShape } from '../query-shapes.js';
import { affected, insertRow, upsertRow, type RepoContext } from './context.js';

/** RULES on a relational database; host ids and task lists as compact XML (database.md §4.2). */
export class SqlRuleRepository implements RuleRepository {
  constructor(private readonly ctx: RepoContext) {}

  async get(idRule: string): Promise<Rule | undefined> {
    const result = await executeShape(this.ctx.db, this.ctx.shapes, 'rules.get', [idRule],
      () => this.ctx.db.selectFrom('rules').selectAll().where('idrule', '=', idRule));
    const row = result.rows[0];
    return row ? fromRow(row) : undefined;
  }

  async list(filter: RuleFilter = {}): Promise<Rule[]> {
    let q = this.ctx.db.selectFrom('rules').selectAll();
    if (filter.idRuleLike !== undefined) q = q.where('idrule', 'like', filter.idRuleLike);
    if (filter.mode !== undefined) q = q.where('modetrans', '=', filter.mode);
    if (filter.updatedInfo !== undefined) q = q.where('updatedinfo', '=', filter.updatedInfo);
    return (await q.orderBy('idrule').execute()).map(fromRow);
  }

  async insert(rule: Rule): Promise<void> {
    await insertRow(this.ctx, 'rules', toRow(rule), `rule ${rule.idRule}`);
  }

  async upsert(rule: Rule): Promise<void> {
    await upsertRow(this.ctx, 'rules', toRow(rule), ['idrule']);
  }

  async delete(idRule: string): Promise<boolean> {
    // No foreign key exists: the original checks in the application (database.md §3.2).
    const used = await this.ctx.db.selectFrom('runner').select('specialid').where('idrule', '=', idRule).limit(1).executeTakeFirst();
    if (used) throw new StoreError(`rule ${idRule} cannot be deleted: transfers in RUNNER still use it`);
    return affected(await this.ctx.db.deleteFrom('rules').where('idrule', '=', idRule).execute()) > 0;
  }

  async setUpdatedInfo(idRule: string, updatedInfo: UpdatedInfo): Promise<boolean> {
    return affected(await this.ctx.db.updateTable('rules').set({ updatedinfo: updatedInfo }).where('idrule', '=', idRule).execute()) > 0;
  }
}

function toRow(r: Rule) {
  return {
    hostids: encodeHostIds(r.hostIds), modetrans: r.mode, recvpath: r.recvPath, sendpath: r.sendPath,
    archivepath: r.archivePath, workpath: r.workPath,
    rpretasks: encodeTasks(r.rPreTasks), rposttasks: encodeTasks(r.rPostTasks), rerrortasks: encodeTasks(r.rErrorTasks),
    spretasks: encodeTasks(r.sPreTasks), sposttasks: encodeTasks(r.sPostTasks), serrortasks: encodeTasks(r.sErrorTasks),
    updatedinfo: r.updatedInfo, idrule: r.idRule,
  };
}

/**
 * Decoded column values by their XML text. A rule is read from its row on every lookup (other
 * processes, e.g. `loadrule`, change rules in the database), but the same XML text always decodes
 * to the same list, so it is parsed once (decision 0014). Callers get their own copies.
 */
const MAX_DECODED = 512;
const decodedTasks = new Map<string, readonly RuleTask[]>();
const decodedHostIds = new Map<string, readonly string[]>();

function remember<V>(cache: Map<string, V>, text: string, value: V): V {
  if (cache.size >= MAX_DECODED) cache.clear();
  cache.set(text, value);
  return value;
}

function tasksOf(text: string | null | undefined): RuleTask[] {
  const key = text ?? '';
  const known = decodedTasks.get(key) ?? remember(decodedTasks, key, decodeTasks(key));
  return known.map((t) => ({ ...t }));
}

function hostIdsOf(text: string | null | undefined): string[] {
  const key = text ?? '';
  return [...(decodedHostIds.get(key) ?? remember(decodedHostIds, key, decodeHostIds(key)))];
}

function fromRow(r: Selectable<RulesTable>): Rule {
  return {
    idRule: r.idrule, hostIds: hostIdsOf(r.hostids), mode: readInt(r.modetrans),
    recvPath: readText(r.recvpath), sendPath: readText(r.sendpath), archivePath: readText(r.archivepath), workPath: readText(r.workpath),
    rPreTasks: tasksOf(r.rpretasks), rPostTasks: tasksOf(r.rposttasks), rErrorTasks: tasksOf(r.rerrortasks),
    sPreTasks: tasksOf(r.spretasks), sPostTasks: tasksOf(r.sposttasks), sErrorTasks: tasksOf(r.serrortasks),
    updatedInfo: readInt(r.updatedinfo),
  };
}
