/** `/v2/limits` (rest-v2.md §10.10): this server's stored bandwidth limits, applied live. */
import { z } from 'zod';
import { Role } from '../../config/index.js';
import type { Limits } from '../../model/limits.js';
import { notifyBandwidthOrder } from '../../monitor/snmp/admin-order-warnings.js';
import { normaliseLimits } from '../context.js';
import { ErrorList, V2BadRequest, V2Code, V2Status } from './errors.js';
import { json, type V2Operation, type V2Request } from './route.js';
import { limitsSchema } from './schemas.js';
import { parseBody } from './validate.js';

const amount = z.number().int().min(0);
export const limitsBody = z.object({
  downGlobalLimit: amount, upGlobalLimit: amount, downSessionLimit: amount, upSessionLimit: amount, delayLimit: amount,
});

const toJson = (l: Limits) => ({
  downGlobalLimit: l.readGlobalLimit, upGlobalLimit: l.writeGlobalLimit, downSessionLimit: l.readSessionLimit,
  upSessionLimit: l.writeSessionLimit, delayLimit: l.delayLimit,
});

/** Each field once (defect V2: the original loops forever on a non-empty body). */
function apply(req: V2Request, base: Limits): Limits {
  const errors = new ErrorList();
  const b = parseBody(limitsBody, req.body ?? {}, errors, { invalidCode: V2Code.IllegalParameterValue });
  errors.throwIfAny();
  return {
    ...base,
    readGlobalLimit: b.downGlobalLimit ?? base.readGlobalLimit, writeGlobalLimit: b.upGlobalLimit ?? base.writeGlobalLimit,
    readSessionLimit: b.downSessionLimit ?? base.readSessionLimit, writeSessionLimit: b.upSessionLimit ?? base.writeSessionLimit,
    delayLimit: b.delayLimit ?? base.delayLimit,
  };
}

/** down = read, up = write (defect V3: the original swaps them when applying live). */
function applyLive(req: V2Request, l: Limits): void {
  req.ctx.services.bandwidth.set(normaliseLimits({
    readGlobal: l.readGlobalLimit, writeGlobal: l.writeGlobalLimit, readSession: l.readSessionLimit, writeSession: l.writeSessionLimit, delay: l.delayLimit,
  }));
  notifyBandwidthOrder(req.ctx.services.notify, req.ctx.services.bandwidth.get(), req.user);
}

async function current(req: V2Request): Promise<Limits> {
  const l = await req.ctx.services.store.limits.get(req.ctx.services.config.hostId);
  if (l === undefined) throw new V2Status(404);
  return l;
}

async function create(req: V2Request) {
  const { store, config } = req.ctx.services;
  const base: Limits = { hostId: config.hostId, readGlobalLimit: 0, writeGlobalLimit: 0, readSessionLimit: 0, writeSessionLimit: 0, delayLimit: 0, updatedInfo: 0 };
  const l = apply(req, base);
  if ((await store.limits.get(config.hostId)) !== undefined) throw V2BadRequest.of(V2Code.AlreadyExisting, config.hostId);
  await store.limits.upsert(l);
  applyLive(req, l);
  return json(201, toJson(l));
}

async function update(req: V2Request) {
  const l = apply(req, await current(req));
  await req.ctx.services.store.limits.upsert(l);
  applyLive(req, l);
  return json(201, toJson(l));
}

async function remove(req: V2Request) {
  await current(req);
  await req.ctx.services.store.limits.delete(req.ctx.services.config.hostId);
  req.ctx.services.bandwidth.set({ readGlobal: 0, writeGlobal: 0, readSession: 0, writeSession: 0, delay: req.ctx.services.bandwidth.get().delay });
  notifyBandwidthOrder(req.ctx.services.notify, req.ctx.services.bandwidth.get(), req.user);
  return { status: 204 };
}

const fn = 'Bandwidth' as const;
const path = '/v2/limits';
export const limitOperations: V2Operation[] = [
  { method: 'GET', path, fn, role: Role.LIMIT, consumes: '*/*', summary: 'Read the bandwidth limits',
    responses: { 200: { description: 'limits', schema: limitsSchema }, 404: { description: 'none' } }, handler: async (r) => json(200, toJson(await current(r))) },
  // READONLY (sic) is what the original requires to create the record (rest-v2.md §7.3).
  { method: 'POST', path, fn, role: Role.READONLY, consumes: 'application/json', summary: 'Initialise the bandwidth limits',
    body: limitsBody, responses: { 201: { description: 'limits', schema: limitsSchema } }, handler: create },
  { method: 'PUT', path, fn, role: Role.LIMIT, consumes: 'application/json', summary: 'Modify the bandwidth limits', needsBody: true,
    body: limitsBody, responses: { 201: { description: 'limits', schema: limitsSchema }, 404: { description: 'none' } }, handler: update },
  { method: 'DELETE', path, fn, role: Role.LIMIT, consumes: '*/*', summary: 'Delete the bandwidth limits',
    responses: { 204: { description: 'deleted' }, 404: { description: 'none' } }, handler: remove },
];
