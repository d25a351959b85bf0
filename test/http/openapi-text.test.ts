// The OpenAPI document says what docs/rest.md says (issue 22 item 4): transfer id format, HMAC and
// signature rules, error bodies.
import { describe, expect, it } from 'vitest';
import { openApiDocument, V2_OPERATIONS } from '../../src/http/v2/index.js';

type Doc = { info: { description: string }; components: { securitySchemes: Record<string, { description: string }> }; paths: Record<string, Record<string, { parameters: Array<Record<string, unknown>>; responses: Record<string, { description: string }> }>> };
const doc = openApiDocument(V2_OPERATIONS) as unknown as Doc;

describe('OpenAPI v2 document', () => {
  it('describes the transfer id as <id>_<requested>, with a pattern, and its 404 text', () => {
    const get = doc.paths['/v2/transfers/{id}']?.get;
    const id = get?.parameters.find((p) => p.name === 'id') as { description: string; schema: { pattern: string } };
    expect(id.description).toContain('`<id>_<requested>`');
    expect(id.schema.pattern).toBe('^-?[0-9]{1,19}_.+$');
    expect(new RegExp(id.schema.pattern).test('1795761826693_hostb')).toBe(true);
    expect(new RegExp(id.schema.pattern).test('1795761826693')).toBe(false);
    expect(get?.responses['404']?.description).toMatch(/text/);
  });

  it('states what an HMAC and a signature are computed over, and the error bodies', () => {
    expect(doc.components.securitySchemes.hmac?.description).toContain('X-Auth-Timestamp + X-Auth-User + password');
    expect(doc.info.description).toContain('Authorization header value + body + request-target');
    expect(doc.info.description).toContain('{"errors":[{"message","errorCode"}]}');
    const post = doc.paths['/v2/hosts']?.post;
    expect(post?.parameters.some((p) => p.name === 'X-Auth-Signature')).toBe(true);
  });
});
