/**
 * The OpenAPI 3 document of v2, generated from the route table: the same zod schemas validate the
 * requests (validate.ts) and describe them here, so the two cannot drift apart.
 */
import { z } from 'zod';
import { PRODUCT_NAME, PRODUCT_VERSION } from '../../model/product.js';
import type { V2Operation } from './route.js';
import { errorListSchema } from './schemas.js';

const ROLE_NAMES: Record<number, string> = { 0: 'NOACCESS', 1: 'READONLY', 2: 'TRANSFER', 4: 'RULE', 8: 'HOST', 15: 'CONFIGADMIN', 16: 'LIMIT', 32: 'SYSTEM', 64: 'LOGCONTROL', 127: 'FULLADMIN' };

/** What `{id}` is in each family of paths (the id formats, issue 22 item 4). */
function idParameter(path: string): Record<string, unknown> {
  if (path.startsWith('/v2/transfers/')) {
    return {
      description: 'Transfer id and requested host joined by an underscore: `<id>_<requested>`, e.g. `1795761826693_hostb` (the `id` and `requested` of a transfer in GET /v2/transfers). '
        + 'The id is a signed 64-bit integer, possibly negative. Only transfers this host requested are addressable. '
        + 'A bare id, or an id with no such transfer, answers 404 with a text/plain line saying which.',
      schema: { type: 'string', pattern: '^-?[0-9]{1,19}_.+$', example: '1795761826693_hostb' },
    };
  }
  if (path.startsWith('/v2/hosts/')) return { description: 'Host id (the partner id of authent.xml).', schema: { type: 'string' } };
  if (path.startsWith('/v2/rules/')) return { description: 'Rule name (idrule).', schema: { type: 'string' } };
  return { schema: { type: 'string' } };
}

/** The authentication and signature rules, as auth.ts checks them. */
const SECURITY_TEXT = [
  'Authentication: `Authorization: Basic base64(<host id>:<password>)`, the password being the clear text of the partner\'s key;',
  'or `Authorization: HMAC <hex>` with `X-Auth-User: <host id>` and `X-Auth-Timestamp: <ISO 8601 date>`, where',
  '<hex> = lower-case hex of HMAC-SHA256(key = the raw bytes of the restsigkey file, message = X-Auth-Timestamp + X-Auth-User + password),',
  'the three strings joined without separator; the timestamp must lie within resttimelimit ms of the server\'s clock (past or future).',
  'Signature (when restauthenticated and restsignature are true): a request WITH a body also carries',
  '`X-Auth-Signature: <hex>` = lower-case hex of HMAC-SHA256(restsigkey, Authorization header value + body + request-target (path and query as sent) + METHOD in upper case).',
  'Requests without a body are not signed.',
  'Errors: 400 `{"errors":[{"message","errorCode"}]}` (every problem found); 404 on an unknown path or method: text/plain `Problem accessing: <uri>. Reason: Not Found|Method Not Allowed`;',
  '404 on an unknown or malformed id: text/plain line naming it; 401 (with WWW-Authenticate: Basic, HMAC), 403, 405, 413, 415 and 500 have an empty body.',
].join(' ');

function schemaOf(s: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

export function openApiDocument(operations: readonly V2Operation[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const parameters: unknown[] = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, ...idParameter(op.path) }));
    for (const [name, field] of Object.entries(op.query?.shape ?? {})) {
      parameters.push({ name, in: 'query', required: false, description: field.description, schema: schemaOf(field) });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      responses[status] = r.schema ? { description: r.description, content: { 'application/json': { schema: schemaOf(r.schema) } } } : { description: r.description };
    }
    responses['400'] ??= { description: 'invalid input', content: { 'application/json': { schema: schemaOf(errorListSchema) } } };
    responses['401'] = { description: 'missing or wrong credentials, or bad signature (empty body; header WWW-Authenticate: Basic, HMAC)' };
    responses['403'] = { description: 'role missing (empty body)' };
    if (op.path.includes('{id}')) responses['404'] ??= { description: 'unknown or malformed id: a text/plain line naming it', content: { 'text/plain': { schema: { type: 'string' } } } };
    if (op.body) {
      parameters.push({
        name: 'X-Auth-Signature', in: 'header', required: false,
        description: 'With restauthenticated and restsignature: lower-case hex HMAC-SHA256(restsigkey, Authorization + body + request-target + METHOD). Required when a body is sent.',
        schema: { type: 'string' },
      });
    }
    const operation: Record<string, unknown> = {
      summary: op.summary,
      description: `Required role: ${ROLE_NAMES[op.role] ?? op.role}. Enabled by restmethod ${op.fn ?? '(always)'}. Consumes ${op.consumes}.`,
      parameters, responses,
    };
    if (op.body) operation.requestBody = { required: op.needsBody === true, content: { [op.consumes === '*/*' ? 'application/json' : op.consumes]: { schema: schemaOf(op.body) } } };
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.0.3',
    info: { title: `${PRODUCT_NAME} REST API v2`, version: PRODUCT_VERSION, description: SECURITY_TEXT },
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'host id and the clear password of its partner entry' },
        hmac: {
          type: 'apiKey', in: 'header', name: 'Authorization',
          description: 'HMAC <hex>: hex HMAC-SHA256(restsigkey bytes, X-Auth-Timestamp + X-Auth-User + password), with the headers X-Auth-User and X-Auth-Timestamp (ISO 8601, within resttimelimit)',
        },
      },
    },
    security: [{ basic: [] }, { hmac: [] }],
    paths,
  };
}
