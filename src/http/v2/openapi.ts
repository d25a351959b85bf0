/**
 * The OpenAPI 3 document of v2, generated from the route table: the same zod schemas validate the
 * requests (validate.ts) and describe them here, so the two cannot drift apart.
 */
import { z } from 'zod';
import { PRODUCT_NAME, PRODUCT_VERSION } from '../../model/product.js';
import type { V2Operation } from './route.js';
import { errorListSchema } from './schemas.js';

const ROLE_NAMES: Record<number, string> = { 0: 'NOACCESS', 1: 'READONLY', 2: 'TRANSFER', 4: 'RULE', 8: 'HOST', 15: 'CONFIGADMIN', 16: 'LIMIT', 32: 'SYSTEM', 64: 'LOGCONTROL', 127: 'FULLADMIN' };

function schemaOf(s: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

export function openApiDocument(operations: readonly V2Operation[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const parameters: unknown[] = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    for (const [name, field] of Object.entries(op.query?.shape ?? {})) {
      parameters.push({ name, in: 'query', required: false, description: field.description, schema: schemaOf(field) });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      responses[status] = r.schema ? { description: r.description, content: { 'application/json': { schema: schemaOf(r.schema) } } } : { description: r.description };
    }
    responses['400'] ??= { description: 'invalid input', content: { 'application/json': { schema: schemaOf(errorListSchema) } } };
    responses['401'] = { description: 'missing or wrong credentials, or bad signature (empty body)' };
    responses['403'] = { description: 'role missing (empty body)' };
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
    info: { title: `${PRODUCT_NAME} REST API v2`, version: PRODUCT_VERSION },
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic' },
        hmac: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'HMAC <hex> with X-Auth-User and X-Auth-Timestamp' },
      },
    },
    security: [{ basic: [] }, { hmac: [] }],
    paths,
  };
}
