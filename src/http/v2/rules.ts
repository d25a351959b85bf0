/** `/v2/rules` (rest-v2.md §10.8): rules CRUD with the six task lists. */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { z } from 'zod';
import { normaliseVirtual, Role, TASK_TYPES } from '../../config/index.js';
import type { Rule, RuleTask } from '../../model/rule.js';
import { maskRuleSecrets, MaskedSecretError, restoreMaskedSecrets } from '../../model/rule-secrets.js';
import { callerHolds } from './auth.js';
import { MODE_BY_NAME, MODE_NAMES, ruleToJson } from './converters.js';
import { ErrorList, V2BadRequest, V2Code, V2Status } from './errors.js';
import { json, type V2Operation, type V2Request } from './route.js';
import { ruleSchema } from './schemas.js';
import { jsonText, parseBody, parseQuery, qEnum, qInt, qText } from './validate.js';
import type { TaskRegistry } from '../../tasks/index.js';

const ORDERS = ['ascName', 'descName', 'ascRuleID', 'descRuleID'] as const;
const MODE_LIST = Object.keys(MODE_BY_NAME) as [string, ...string[]];
const listQuery = z.object({
  limit: qInt.describe('page size (default 20, must be > 0)'),
  offset: qInt.describe('rows skipped (default 0)'),
  order: qEnum(ORDERS).describe('sort order (default ascName)'),
  modeTrans: qEnum(MODE_LIST).describe('transfer mode'),
  countOrder: qText.describe('true = count only'),
});

const task = z.object({ type: z.string(), arguments: z.string().optional(), delay: z.number().int().min(0).optional() }).strict();
const TASK_KEYS = ['rPreTasks', 'rPostTasks', 'rErrorTasks', 'sPreTasks', 'sPostTasks', 'sErrorTasks'] as const;
export const ruleBody = z.object({
  name: z.string().transform((s) => s.replace(/\s+/g, ' ').trim()).pipe(z.string().min(1)),
  hostIds: z.array(z.string()),
  mode: z.enum(Object.values(MODE_NAMES) as [string, ...string[]]),
  recvPath: z.string(), sendPath: z.string(), archivePath: z.string(), workPath: z.string(),
  ...Object.fromEntries(TASK_KEYS.map((k) => [k, z.array(z.unknown())])) as Record<(typeof TASK_KEYS)[number], z.ZodArray<z.ZodUnknown>>,
});

async function getRule(req: V2Request): Promise<Rule> {
  const rule = await req.ctx.services.store.rules.get(req.params.id ?? '');
  if (rule === undefined) throw new V2Status(404);
  return rule;
}

/** Rules as a caller sees them: task credentials masked without the RULE role (decision 0038). */
async function shownAs(req: V2Request): Promise<(r: Rule) => Record<string, unknown>> {
  const clear = await callerHolds(req.ctx, req.user, Role.RULE);
  return (r) => ruleToJson(clear ? r : maskRuleSecrets(r));
}

/** The rule to store: masked credentials sent back take the stored values, or the request is refused. */
function withStoredSecrets(rule: Rule, stored: Rule | undefined): Rule {
  try {
    return restoreMaskedSecrets(rule, stored);
  } catch (err) {
    if (err instanceof MaskedSecretError) throw V2BadRequest.of(V2Code.IllegalFieldValue, JSON.stringify(err.message), err.list);
    throw err;
  }
}

async function list(req: V2Request) {
  const errors = new ErrorList();
  const q = parseQuery(listQuery, req.query, errors);
  if (q.limit !== undefined && q.limit <= 0) errors.add(V2Code.IllegalParameterValue, `'${req.query.limit}'`, 'limit');
  if (q.offset !== undefined && q.offset < 0) errors.add(V2Code.IllegalParameterValue, `'${req.query.offset}'`, 'offset');
  errors.throwIfAny();
  // Filter by the mode's code (defect V5: the original filters by list position).
  const rules = await req.ctx.services.store.rules.list(q.modeTrans !== undefined ? { mode: MODE_BY_NAME[q.modeTrans]! } : {});
  if (req.query.countOrder?.toLowerCase() === 'true') return json(200, { totalResults: rules.length });
  if ((q.order ?? 'ascName').startsWith('desc')) rules.reverse();
  const offset = q.offset ?? 0;
  return json(200, { totalResults: rules.length, results: rules.slice(offset, offset + (q.limit ?? 20)).map(await shownAs(req)) });
}

/** A task type of a rule request: a name of the original (exact case) or one this server's plug-ins register. */
function isTaskType(type: string, registry: TaskRegistry | undefined): boolean {
  return TASK_TYPES.has(type) || (registry !== undefined && type === type.toUpperCase() && registry.get(type) !== undefined);
}

function tasksOf(value: unknown[], field: string, errors: ErrorList, registry: TaskRegistry | undefined): RuleTask[] {
  const out: RuleTask[] = [];
  for (const item of value) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) { errors.add(V2Code.IllegalFieldValue, jsonText(item), field); continue; }
    const entries = Object.entries(item as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), v] as const);
    const known = new Map(entries);
    for (const [k] of entries) if (!['type', 'arguments', 'delay'].includes(k)) errors.add(V2Code.UnknownField, JSON.stringify(k));
    const type = known.get('type');
    if (type === undefined || type === '') { errors.add(V2Code.MissingFieldValue, 'type'); continue; }
    if (typeof type !== 'string' || !isTaskType(type, registry)) { errors.add(V2Code.IllegalFieldValue, jsonText(type), 'type'); continue; }
    const args = known.get('arguments') ?? '';
    if (typeof args !== 'string') { errors.add(V2Code.IllegalFieldValue, jsonText(args), 'arguments'); continue; }
    const delay = known.get('delay') ?? 0;
    if (typeof delay !== 'number' || !Number.isInteger(delay) || delay < 0) { errors.add(V2Code.IllegalFieldValue, jsonText(delay), 'delay'); continue; }
    out.push({ type, path: args, delay });
  }
  return out;
}

/** A directory field: relative as given; absolute existing directories must lie inside the base. */
async function rulePath(req: V2Request, value: string, field: string, errors: ErrorList): Promise<string> {
  if (value === '') return '';
  if (isAbsolute(value)) {
    const isDir = await stat(value).then((s) => s.isDirectory(), () => false);
    if (isDir) {
      const inside = relative(req.ctx.services.config.directories.serverHome, await realpath(value));
      if (inside.startsWith('..') || isAbsolute(inside)) { errors.add(V2Code.IllegalFieldValue, JSON.stringify(value), field); return ''; }
      return normaliseVirtual(inside);
    }
  }
  return normaliseVirtual(value);
}

async function applyBody(req: V2Request, base: Rule, errors: ErrorList, required: readonly string[]): Promise<Rule> {
  const b = parseBody(ruleBody, req.body ?? {}, errors, { required, aliases: { modeTrans: 'mode', rPostTask: 'rPostTasks' } });
  const rule: Rule = { ...base };
  if (b.name !== undefined) rule.idRule = b.name;
  if (b.hostIds !== undefined) rule.hostIds = b.hostIds;
  if (b.mode !== undefined) rule.mode = MODE_BY_NAME[b.mode]!;
  for (const key of ['recvPath', 'sendPath', 'archivePath', 'workPath'] as const) {
    if (b[key] !== undefined) rule[key] = await rulePath(req, b[key], key, errors);
  }
  const registry = req.ctx.services.tasks;
  for (const key of TASK_KEYS) if (b[key] !== undefined) rule[key] = tasksOf(b[key], key, errors, registry);
  return rule;
}

const emptyRule = (): Rule => ({
  idRule: '', hostIds: [], mode: 1, recvPath: '', sendPath: '', archivePath: '', workPath: '',
  rPreTasks: [], rPostTasks: [], rErrorTasks: [], sPreTasks: [], sPostTasks: [], sErrorTasks: [], updatedInfo: 0,
});

async function create(req: V2Request) {
  const errors = new ErrorList();
  const rule = await applyBody(req, emptyRule(), errors, ['name', 'mode']);
  errors.throwIfAny();
  const store = req.ctx.services.store;
  if ((await store.rules.get(rule.idRule)) !== undefined) throw V2BadRequest.of(V2Code.AlreadyExisting, rule.idRule);
  await store.rules.insert(withStoredSecrets(rule, undefined));
  return json(201, ruleToJson(rule), { ruleURI: `/v2/rules/${encodeURIComponent(rule.idRule)}` });
}

async function update(req: V2Request) {
  const current = await getRule(req);
  const errors = new ErrorList();
  const rule = await applyBody(req, current, errors, []);
  if (rule.idRule !== current.idRule) errors.add(V2Code.UnauthorizedField, 'name');
  errors.throwIfAny();
  const stored = withStoredSecrets(rule, current);
  await req.ctx.services.store.rules.upsert(stored);
  return json(201, ruleToJson(stored));
}

async function remove(req: V2Request) {
  const rule = await getRule(req);
  const store = req.ctx.services.store;
  // A rule in use is neither deleted nor reported deleted (defect V6).
  if ((await store.runner.count({ idRule: rule.idRule })) > 0) throw new V2Status(404);
  await store.rules.delete(rule.idRule);
  return { status: 204 };
}

const fn = 'DbRule' as const;
const idPath = '/v2/rules/{id}';
export const ruleOperations: V2Operation[] = [
  { method: 'GET', path: '/v2/rules', fn, role: Role.READONLY, consumes: 'application/x-www-form-urlencoded', summary: 'List rules',
    query: listQuery, responses: { 200: { description: 'rules' } }, handler: list },
  { method: 'POST', path: '/v2/rules', fn, role: Role.RULE, consumes: 'application/json', summary: 'Create a rule', needsBody: true,
    body: ruleBody, responses: { 201: { description: 'the new rule', schema: ruleSchema } }, handler: create },
  { method: 'GET', path: idPath, fn, role: Role.NOACCESS, consumes: '*/*', summary: 'Read a rule',
    responses: { 200: { description: 'the rule', schema: ruleSchema }, 404: { description: 'unknown rule' } }, handler: async (r) => json(200, (await shownAs(r))(await getRule(r))) },
  { method: 'PUT', path: idPath, fn, role: Role.RULE, consumes: 'application/json', summary: 'Update a rule', needsBody: true,
    body: ruleBody, responses: { 201: { description: 'the rule', schema: ruleSchema }, 404: { description: 'unknown rule' } }, handler: update },
  { method: 'DELETE', path: idPath, fn, role: Role.RULE, consumes: '*/*', summary: 'Delete a rule',
    responses: { 204: { description: 'deleted' }, 404: { description: 'unknown or in use' } }, handler: remove },
];

export { task as taskInputSchema };
