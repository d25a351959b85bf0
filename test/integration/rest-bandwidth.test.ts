// The measured bandwidth of the REST status documents (rest-v2.md §10.11 inBandwidth/outBandwidth,
// rest-v1.md §12.6 InBandwidth/OutBandwidth; bandwidth.md §6.2: kilobits/s = bytes/s ÷ 128) comes
// from the shaper's traffic counters: a transfer held at 4 MiB/s by the sender's global limit shows
// about 32768 kbit/s out on the sender and in on the receiver while it runs, and 0 once idle.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import type { Harness } from '../http/harness.js';
import { v1 } from '../http/v1-client.js';
import { waitFor } from '../helpers/wait.js';
import { freePort, killNodes, rest, rowOf, startNode, writeNode, writePatternFile, type Node } from '../transfer/servers.js';

const LIMIT = 4 * 1024 * 1024;
const LIMIT_KBITS = LIMIT / 128;
// About 8 s at the limit: several check intervals (delaylimit 1000 ms) while it runs.
const SIZE = 32 * 1024 * 1024;
const RULE = { 'send.rule.xml': '<rule><idrule>send</idrule><hostids/><mode>1</mode></rule>\n' };

let box: Sandbox;
let a: Node;
let b: Node;

beforeEach(async () => {
  box = sandbox();
  const [pa, pb] = [await freePort(), await freePort()];
  a = await writeNode(box, 'hosta', pa, [{ id: 'hostb', port: pb }], { rest: true, rules: RULE, limit: `<globallimit>${LIMIT}</globallimit>` });
  // v1admin: a client-only partner (negative port), the only kind REST v1 accepts as user.
  b = await writeNode(box, 'hostb', pb, [{ id: 'hosta', port: pa }, { id: 'v1admin', port: -1 }], { rest: true, rules: RULE, admins: ['hostb', 'v1admin'] });
  await startNode(b);
  await startNode(a);
}, 60_000);

afterEach(() => {
  killNodes(a, b);
  box.cleanup();
});

/** v2 status of a node: its measured bandwidth in kbit/s. */
async function v2Bandwidth(node: Node): Promise<{ in: number; out: number }> {
  const r = await rest(node, 'GET', '/v2/server/status');
  expect(r.status).toBe(200);
  return { in: Number(r.json!.inBandwidth), out: Number(r.json!.outBandwidth) };
}

/** v1 status (GET /server) of a node: its measured bandwidth in kbit/s. */
async function v1Bandwidth(node: Node): Promise<{ in: number; out: number }> {
  const r = await v1({ base: `http://127.0.0.1:${node.restPort}` } as Harness, 'GET', '/server', { user: 'v1admin', key: null });
  expect(r.status, r.text).toBe(200);
  const status = (r.json().answer as { results: Array<Record<string, unknown>> }).results[0]!;
  return { in: Number(status.InBandwidth), out: Number(status.OutBandwidth) };
}

const nearLimit = (kbits: number): boolean => kbits > LIMIT_KBITS * 0.5 && kbits < LIMIT_KBITS * 1.3;

describe('REST status bandwidth is measured by the shaper (real server processes)', () => {
  it('a 4 MiB/s transfer shows about 32768 kbit/s out on the sender (v2) and in on the receiver (v1), then 0', async () => {
    expect(await v2Bandwidth(a)).toEqual({ in: 0, out: 0 });
    await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
    const add = await rest(a, 'POST', '/v2/transfers', { ruleName: 'send', filename: 'big.bin', requested: 'hostb' });
    expect(add.status, JSON.stringify(add.json)).toBe(201);
    const id = BigInt(/\/v2\/transfers\/(-?\d+)_/.exec(add.headers.get('transfer-uri') ?? '')![1]!);

    // The sender's shaper holds the rate: the status of a whole check interval under way shows it.
    const out = await waitFor(async () => {
      const bw = await v2Bandwidth(a);
      return nearLimit(bw.out) ? bw : undefined;
    }, { what: 'the sender to report its outgoing bandwidth', timeoutMs: 30_000 });
    expect(out.in).toBe(0);
    const received = await waitFor(async () => {
      const bw = await v1Bandwidth(b);
      return nearLimit(bw.in) ? bw : undefined;
    }, { what: 'the receiver to report its incoming bandwidth', timeoutMs: 30_000 });
    expect(received.out).toBe(0);
    // Never above the limit (one block of burst at most) while it runs.
    expect((await v2Bandwidth(a)).out).toBeLessThan(LIMIT_KBITS * 1.3);

    await waitFor(async () => Number((await rowOf(a, id))?.updatedinfo) === 6, { what: 'the transfer done', timeoutMs: 60_000 });
    await waitFor(async () => (await v2Bandwidth(a)).out === 0, { what: 'the sender idle again', timeoutMs: 10_000 });
  }, 120_000);
});
