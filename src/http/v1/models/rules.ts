/**
 * v1 `/rules` (model DbRule, rest-v1.md §11.3): host list and the six task lists travel as the
 * database's XML texts. Keys are matched in any case on input.
 */
import { decodeHostIds, decodeTasks, encodeHostIds, encodeTasks, Role } from '../../../config/index.js';
import { TransferMode, type Rule } from '../../../model/rule.js';
import { MaskedSecretError, restoreMaskedSecrets } from '../../../model/rule-secrets.js';
import { UpdatedInfo } from '../../../model/transfer.js';
import { StoreError } from '../../../store/index.js';
import type { RestListenerContext } from '../../context.js';
import type { JsonObject } from '../../json.js';
import { int, ModelError, SQL, text, type DataModel, type ModelArgs } from './model.js';

/** Column -> rule field of the task lists, in the original's output order. */
const TASK_COLUMNS = [
  ['SPRETASKS', 'sPreTasks'], ['SERRORTASKS', 'sErrorTasks'], ['RPRETASKS', 'rPreTasks'],
  ['RPOSTTASKS', 'rPostTasks'], ['RERRORTASKS', 'rErrorTasks'], ['SPOSTTASKS', 'sPostTasks'],
] as const;

export function ruleItem(r: Rule): JsonObject {
  const item: JsonObject = {
    '@model': 'DbRule', IDRULE: r.idRule, MODETRANS: BigInt(r.mode), RECVPATH: r.recvPath, SENDPATH: r.sendPath, ARCHIVEPATH: r.archivePath,
    WORKPATH: r.workPath, UPDATEDINFO: BigInt(r.updatedInfo), HOSTIDS: encodeHostIds(r.hostIds),
  };
  for (const [column, field] of TASK_COLUMNS) item[column] = encodeTasks(r[field]);
  return item;
}

function apply(r: Rule, args: ModelArgs): void {
  const mode = int(args, 'MODETRANS');
  if (mode !== undefined && (mode < 1 || mode > 8)) throw new ModelError(400, 'MODETRANS must be a transfer mode from 1 to 8');
  r.mode = mode ?? r.mode;
  r.recvPath = text(args, 'RECVPATH') ?? r.recvPath;
  r.sendPath = text(args, 'SENDPATH') ?? r.sendPath;
  r.archivePath = text(args, 'ARCHIVEPATH') ?? r.archivePath;
  r.workPath = text(args, 'WORKPATH') ?? r.workPath;
  const hosts = text(args, 'HOSTIDS');
  if (hosts !== undefined) r.hostIds = decodeHostIds(hosts);
  for (const [column, field] of TASK_COLUMNS) {
    const tasks = text(args, column);
    if (tasks !== undefined) r[field] = decodeTasks(tasks);
  }
  r.updatedInfo = UpdatedInfo.TOSUBMIT;
}

/**
 * The rule to store: masked task credentials sent back (read from a web page or an export made by a
 * caller without RULE) take the stored values, or the request is refused (decision 0038).
 */
function withStoredSecrets(rule: Rule, stored: Rule | undefined): Rule {
  try {
    return restoreMaskedSecrets(rule, stored);
  } catch (err) {
    if (err instanceof MaskedSecretError) throw new ModelError(400, err.message);
    throw err;
  }
}

async function create(ctx: RestListenerContext, args: ModelArgs): Promise<JsonObject> {
  const id = text(args, 'IDRULE');
  if (!id) throw new ModelError(400, 'not enough data to create a rule: IDRULE required');
  const store = ctx.services.store.rules;
  const stored = await store.get(id);
  // Create is an upsert. A new rule without MODETRANS sends (mode 0 is never valid in a rule).
  let rule: Rule = stored !== undefined ? { ...stored } : {
    idRule: id, hostIds: [], mode: TransferMode.SENDMODE, recvPath: '', sendPath: '', archivePath: '', workPath: '',
    rPreTasks: [], rPostTasks: [], rErrorTasks: [], sPreTasks: [], sPostTasks: [], sErrorTasks: [], updatedInfo: 0,
  };
  apply(rule, args);
  rule = withStoredSecrets(rule, stored);
  await store.upsert(rule);
  return ruleItem(rule);
}

export const rulesModel: DataModel = {
  fn: 'DbRule', base: 'rules', model: 'DbRule', role: Role.RULE,
  columns: {
    IDRULE: SQL.NVARCHAR, MODETRANS: SQL.INTEGER, RECVPATH: SQL.VARCHAR, SENDPATH: SQL.VARCHAR, ARCHIVEPATH: SQL.VARCHAR, WORKPATH: SQL.VARCHAR,
    UPDATEDINFO: SQL.INTEGER, HOSTIDS: SQL.LONGVARCHAR, ...Object.fromEntries(TASK_COLUMNS.map(([c]) => [c, SQL.LONGVARCHAR])),
  },
  filters: { IDRULE: 'rule id equals', MODETRANS: 'mode equals (absent or negative: any)', limit: 'maximum items returned (default 100)' },
  async list(ctx, args) {
    const id = text(args, 'IDRULE');
    const mode = int(args, 'MODETRANS');
    // Absent or negative MODETRANS = no mode condition, IDRULE kept (defect D1).
    const rows = await ctx.services.store.rules.list(mode !== undefined && mode >= 0 ? { mode } : {});
    return rows.filter((r) => !id || r.idRule === id).map(ruleItem);
  },
  get: async (ctx, id) => {
    const r = await ctx.services.store.rules.get(id);
    return r === undefined ? undefined : ruleItem(r);
  },
  create,
  async update(ctx, id, args) {
    const stored = await ctx.services.store.rules.get(id);
    if (stored === undefined) return undefined;
    const rule = { ...stored };
    apply(rule, args);
    const kept = withStoredSecrets(rule, stored);
    await ctx.services.store.rules.upsert(kept);
    return ruleItem(kept);
  },
  async remove(ctx, id) {
    const rule = await ctx.services.store.rules.get(id);
    if (rule === undefined) return undefined;
    try {
      await ctx.services.store.rules.delete(id);
    } catch (err) {
      if (err instanceof StoreError) throw new ModelError(400, `rule ${id} is still used by transfers`);
      throw err;
    }
    return ruleItem(rule);
  },
};
