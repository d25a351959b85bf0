/**
 * Drives the five v1 data-model resources (rest-v1.md §11): merges query arguments and the JSON
 * body (body wins; an unreadable body is ignored with a note, as the original does), runs the
 * operation and shapes `answer`: the item itself, or `{filter, results, count, limit}` for a list.
 */
import { isSaneValue } from '../../config/values.js';
import { StoreError } from '../../store/index.js';
import type { RestListenerContext } from '../context.js';
import { parseLenientJson, type JsonObject, type JsonValue } from '../json.js';
import { configurationsModel } from './models/configurations.js';
import { hostConfigsModel } from './models/hostconfigs.js';
import { hostsModel } from './models/hosts.js';
import { ModelError, type DataModel, type ModelArgs } from './models/model.js';
import { R66Error } from '../../model/r66-error.js';
import { restStatusOf } from '../error-answer.js';
import { rulesModel } from './models/rules.js';
import { transfersModel } from './models/transfers.js';
import type { V1Request } from './request.js';

export const DATA_MODELS: readonly DataModel[] = [hostsModel, rulesModel, transfersModel, hostConfigsModel, configurationsModel];

/** Cap on the items of a list answer when the query has no lower-case `limit` (§11). */
const DEFAULT_CAP = 100;

export interface ModelResult {
  code: number;
  command: string;
  answer?: JsonValue;
  detail?: string;
}

function readBody(body: string): { obj: JsonObject } | { note: string } | undefined {
  if (body.trim() === '') return undefined;
  let value: JsonValue;
  try {
    value = parseLenientJson(body);
  } catch {
    return { note: 'the JSON body could not be parsed and was ignored' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { note: 'the JSON body is not an object and was ignored' };
  return { obj: value };
}

const COMMANDS: Record<string, string> = { POST: 'CREATE', PUT: 'UPDATE', DELETE: 'DELETE' };

export async function runDataModel(ctx: RestListenerContext, model: DataModel, method: string, r: V1Request): Promise<ModelResult> {
  const id = r.subpath.length === 1 ? r.subpath[0] : undefined;
  const command = method === 'GET' ? (id === undefined ? 'MULTIGET' : 'GET') : COMMANDS[method] ?? method;
  // Markup or control characters in a body are refused before anything is read (§2.5).
  if (!isSaneValue(r.body)) return { code: 400, command, detail: 'the body contains forbidden characters or markup' };
  const body = readBody(r.body);
  const args: ModelArgs = { ...(r.uri as ModelArgs), ...(body !== undefined && 'obj' in body ? body.obj : {}) };
  const note = body !== undefined && 'note' in body ? body.note : undefined;
  try {
    if (method === 'GET' && id === undefined) {
      const capText = typeof args.limit === 'string' || typeof args.limit === 'bigint' ? String(args.limit) : undefined;
      const cap = capText !== undefined && /^\d{1,9}$/.test(capText.trim()) ? Number(capText.trim()) : DEFAULT_CAP;
      const results = (await model.list(ctx, args)).slice(0, cap);
      const filter = body !== undefined && 'obj' in body ? body.obj : {};
      return { code: 200, command, answer: { filter, results, count: BigInt(results.length), limit: BigInt(cap) }, ...(note ? { detail: note } : {}) };
    }
    let item: JsonObject | undefined;
    if (method === 'POST') item = await model.create(ctx, args);
    else if (method === 'GET') item = await model.get(ctx, id!, args);
    else if (method === 'PUT') item = await model.update(ctx, id!, args);
    else item = await model.remove(ctx, id!, args);
    if (item === undefined) return { code: 404, command, detail: `${model.model} ${id ?? ''} not found` };
    return { code: 200, command, answer: item, ...(note ? { detail: note } : {}) };
  } catch (err) {
    // A conflict (a transfer another process runs) is answered 409 as well as said in the body.
    if (err instanceof ModelError) return { code: err.code, command, detail: err.detail, ...(err.code === 409 ? { httpStatus: 409 } : {}) };
    // A new transfer while this host blocks them (BlockRequest): 503, as v2's POST.
    if (err instanceof R66Error && restStatusOf(err) === 503) return { code: 503, command, detail: err.message };
    // A database refusal (constraint, size) is the user's input: 400 without driver details.
    if (err instanceof StoreError) {
      ctx.services.log.warn({ base: model.base, err: err.message }, 'REST v1 database refusal');
      return { code: 400, command, detail: 'the database refused the change' };
    }
    throw err;
  }
}

/** OPTIONS DetailedAllow of a data model (§10.1): sample bodies and the column types as sample answer. */
export function dataModelOptions(model: DataModel, allowed: readonly string[]): JsonValue[] {
  const base = `/${model.base}`;
  const one = `${base}/id`;
  const sample: JsonObject = { '@model': model.model, ...Object.fromEntries(Object.entries(model.columns).map(([k, v]) => [k, BigInt(v)])) };
  const columns: JsonObject = Object.fromEntries(Object.keys(model.columns).map((k) => [k, 'column value']));
  const out: JsonValue[] = [];
  if (allowed.includes('GET')) {
    out.push({ GET: { path: base, command: 'MULTIGET', body: model.filters, answer: [sample] } });
    out.push({ GET: { path: one, command: 'GET', answer: sample } });
  }
  if (allowed.includes('PUT')) out.push({ PUT: { path: one, command: 'UPDATE', body: columns, answer: sample } });
  if (allowed.includes('POST')) out.push({ POST: { path: base, command: 'CREATE', body: columns, answer: sample } });
  if (allowed.includes('DELETE')) out.push({ DELETE: { path: one, command: 'DELETE', answer: sample } });
  out.push({ OPTIONS: { path: base, command: 'OPTIONS' } });
  return out;
}
