/** `/v2/hosts` (rest-v2.md §10.7): partners CRUD. */
import { z } from 'zod';
import { encryptPasswordHex, Role } from '../../config/index.js';
import type { Host } from '../../model/host.js';
import { callerHolds } from './auth.js';
import { hostToJson } from './converters.js';
import { ErrorList, V2BadRequest, V2Code, V2Status } from './errors.js';
import { json, type V2Operation, type V2Request } from './route.js';
import { hostSchema } from './schemas.js';
import { parseBody, parseQuery, qBool, qEnum, qInt, qText } from './validate.js';

const ORDERS = ['ascId', 'descId', 'ascAddress', 'descAddress', 'ascHostID', 'descHostID'] as const;

const listQuery = z.object({
  limit: qInt.describe('page size (default 20; negative refused, 0 = empty page)'),
  offset: qInt.describe('rows skipped (default 0)'),
  order: qEnum(ORDERS).describe('sort order (default ascId)'),
  address: qText.describe('address equals'),
  isSSL: qBool.describe('TLS flag equals'),
  isActive: qBool.describe('active flag equals'),
  countOrder: qText.describe('true = count only'),
});

export const hostBody = z.object({
  name: z.string().min(1), address: z.string(), port: z.number().int().min(0).max(65535), password: z.string(),
  isSSL: z.boolean(), isClient: z.boolean(), isAdmin: z.boolean(), isActive: z.boolean(), isProxy: z.boolean(),
});

async function getHost(req: V2Request): Promise<Host> {
  const host = await req.ctx.services.store.hosts.get(req.params.id ?? '');
  if (host === undefined) throw new V2Status(404);
  return host;
}

/** Stored keys go only to callers with the HOST role (issue 21: READONLY users received them all). */
function mayReadKeys(req: V2Request): Promise<boolean> {
  return callerHolds(req.ctx, req.user, Role.HOST);
}

async function list(req: V2Request) {
  const errors = new ErrorList();
  const q = parseQuery(listQuery, req.query, errors);
  if (q.limit !== undefined && q.limit < 0) errors.add(V2Code.IllegalParameterValue, `'${req.query.limit}'`, 'limit');
  if (q.offset !== undefined && q.offset < 0) errors.add(V2Code.IllegalParameterValue, `'${req.query.offset}'`, 'offset');
  errors.throwIfAny();
  const filter: { address?: string; isSsl?: boolean; isActive?: boolean } = {};
  if (q.address !== undefined) filter.address = q.address;
  if (q.isSSL !== undefined) filter.isSsl = q.isSSL;
  if (q.isActive !== undefined) filter.isActive = q.isActive;
  const hosts = await req.ctx.services.store.hosts.list(filter);
  if (req.query.countOrder?.toLowerCase() === 'true') return json(200, { totalResults: hosts.length });
  const order = q.order ?? 'ascId';
  const key = (h: Host): string => (order.includes('Address') ? h.address : h.hostId);
  hosts.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  if (order.startsWith('desc')) hosts.reverse();
  const offset = q.offset ?? 0;
  const page = hosts.slice(offset, offset + (q.limit ?? 20));
  const reveal = await mayReadKeys(req);
  return json(200, { totalResults: hosts.length, results: page.map((h) => hostToJson(h, reveal)) });
}

function applyBody(req: V2Request, base: Host, b: Partial<z.output<typeof hostBody>>): Host {
  const host: Host = { ...base };
  if (b.address !== undefined) host.address = b.address;
  if (b.port !== undefined) host.port = b.port;
  // Input is the clear password; only its encrypted form is stored.
  if (b.password !== undefined) host.hostKey = Buffer.from(encryptPasswordHex(req.ctx.services.config.identity.cryptoKey, b.password), 'ascii');
  if (b.isSSL !== undefined) host.isSsl = b.isSSL;
  if (b.isClient !== undefined) host.isClient = b.isClient;
  if (b.isAdmin !== undefined) host.adminRole = b.isAdmin;
  if (b.isActive !== undefined) host.isActive = b.isActive;
  if (b.isProxy !== undefined) host.isProxified = b.isProxy;
  return host;
}

async function create(req: V2Request) {
  const errors = new ErrorList();
  const b = parseBody(hostBody, req.body ?? {}, errors, { required: ['name', 'address', 'port', 'password'] });
  errors.throwIfAny();
  const store = req.ctx.services.store;
  // An existing id is refused; the original inverted this test (defect V1).
  if ((await store.hosts.get(b.name!)) !== undefined) throw V2BadRequest.of(V2Code.AlreadyExisting, b.name!);
  const host = applyBody(req, {
    hostId: b.name!, address: '', port: 0, isSsl: false, hostKey: null, adminRole: false, isClient: false, isActive: true, isProxified: false, updatedInfo: 0,
  }, b);
  await store.hosts.insert(host);
  const uri = `/v2/hosts/${encodeURIComponent(host.hostId)}`;
  return json(201, hostToJson(host), { 'host-uri': uri, hostURI: uri });
}

async function update(req: V2Request) {
  const current = await getHost(req);
  const errors = new ErrorList();
  const b = parseBody(hostBody, req.body ?? {}, errors);
  if (b.name !== undefined && b.name !== current.hostId) errors.add(V2Code.UnauthorizedField, 'name');
  errors.throwIfAny();
  const host = applyBody(req, current, b);
  await req.ctx.services.store.hosts.upsert(host);
  return json(201, hostToJson(host));
}

async function remove(req: V2Request) {
  const host = await getHost(req);
  const { config, store } = req.ctx.services;
  // Own ids and partners of stored transfers are not deleted (and nothing is deleted: defect V6).
  if (host.hostId === config.hostId || host.hostId === config.sslHostId) throw new V2Status(404);
  if ((await store.runner.count({ partner: host.hostId })) > 0) throw new V2Status(404);
  await store.hosts.delete(host.hostId);
  return { status: 204 };
}

const fn = 'DbHostAuth' as const;
const idPath = '/v2/hosts/{id}';
export const hostOperations: V2Operation[] = [
  { method: 'GET', path: '/v2/hosts', fn, role: Role.READONLY, consumes: 'application/x-www-form-urlencoded', summary: 'List hosts',
    query: listQuery, responses: { 200: { description: 'hosts' } }, handler: list },
  { method: 'POST', path: '/v2/hosts', fn, role: Role.HOST, consumes: 'application/json', summary: 'Create a host', needsBody: true,
    body: hostBody, responses: { 201: { description: 'the new host', schema: hostSchema } }, handler: create },
  { method: 'GET', path: idPath, fn, role: Role.READONLY, consumes: '*/*', summary: 'Read a host',
    responses: { 200: { description: 'the host', schema: hostSchema }, 404: { description: 'unknown host' } }, handler: async (r) => json(200, hostToJson(await getHost(r), await mayReadKeys(r))) },
  { method: 'PUT', path: idPath, fn, role: Role.HOST, consumes: 'application/json', summary: 'Update a host', needsBody: true,
    body: hostBody, responses: { 201: { description: 'the host', schema: hostSchema }, 404: { description: 'unknown host' } }, handler: update },
  { method: 'DELETE', path: idPath, fn, role: Role.HOST, consumes: '*/*', summary: 'Delete a host',
    responses: { 204: { description: 'deleted' }, 404: { description: 'unknown, own or in use' } }, handler: remove },
];
