// Business requests against a real svc-r66server (r66-protocol.md §9.11, tasks.md "Tasks allowed
// in business requests"): the server's business registry runs ExecBusinessTask (one allowed task
// outside any transfer), answers BusinessRequest(way 1) or the JSON answer, refuses callers not in
// its business list (A), unknown classes (c) and task types not allowed there (E).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newJsonCommand, PacketType, Way } from '../../src/protocol/index.js';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import type { Harness } from '../http/harness.js';
import { cls, v1 } from '../http/v1-client.js';
import { waitFor } from '../helpers/wait.js';
import { freePort, killNodes, openCaller, order, startNode, writeNode, type Caller, type Node } from '../transfer/servers.js';

const EXEC_BUSINESS = 'org.waarp.openr66.context.task.ExecBusinessTask';

let box: Sandbox;
let b: Node;
const callers: Caller[] = [];

beforeEach(async () => {
  box = sandbox();
  // v1admin: a client-only (REST v1) user, also in the business list.
  b = await writeNode(box, 'hostb', await freePort(), [{ id: 'hostc', port: 1 }, { id: 'hostd', port: 1 }, { id: 'v1admin', port: -1 }], {
    business: ['hostc', 'v1admin'], rest: true, admins: ['hostb', 'v1admin'],
  });
  await startNode(b);
}, 60_000);

afterEach(async () => {
  for (const c of callers.splice(0)) await c.close();
  killNodes(b);
  box.cleanup();
});

describe('business requests (real server)', () => {
  it('runs allowed tasks for a caller of the business list; refuses others with A, c or E', async () => {
    const c = await openCaller(box, 'hostc', [b]);
    const d = await openCaller(box, 'hostd', [b]);
    callers.push(c, d);
    const marker = join(box.dir, 'business-marker');

    const exec = `${EXEC_BUSINESS} EXEC touch ${marker}`;
    expect(await order(c, 'hostb', { kind: 'businessRequest', header: exec, delay: 0, way: Way.ASK })).toMatchObject({ kind: 'businessRequest', header: exec, way: Way.ANSWER });
    expect(existsSync(marker)).toBe(true);

    // LOG (delay 0 becomes 1: the server's log) through the JSON form, rebranded class name.
    const json = newJsonCommand('BusinessRequestJsonPacket', { className: 'org.svc.openr66.context.task.ExecBusinessTask', arguments: 'LOG INFO business says hi', extraArguments: null, delay: 0, toApplied: true, validated: false });
    expect(await order(c, 'hostb', { kind: 'jsonCommand', command: json, result: '', subType: PacketType.BUSINESSREQUEST })).toMatchObject({ kind: 'jsonCommand', result: 'O' });
    await waitFor(() => b.proc!.stdout().includes('business says hi'), { what: 'the LOG line in the server log' });

    // Not in the business list; unknown class; task type not allowed in business requests.
    expect(await order(d, 'hostb', { kind: 'businessRequest', header: exec, delay: 0, way: Way.ASK })).toMatchObject({ kind: 'error', code: { char: 'A' } });
    expect(await order(c, 'hostb', { kind: 'businessRequest', header: 'com.example.Nothing arg', delay: 0, way: Way.ASK })).toMatchObject({ kind: 'error', code: { char: 'c' } });
    expect(await order(c, 'hostb', { kind: 'businessRequest', header: `${EXEC_BUSINESS} DELETE ${marker}`, delay: 0, way: Way.ASK })).toMatchObject({ kind: 'error', code: { char: 'E' } });
    expect(existsSync(marker)).toBe(true);
    // A failing task: E with its reason.
    const failed = await order(c, 'hostb', { kind: 'businessRequest', header: `${EXEC_BUSINESS} EXEC /nonexistent/program`, delay: 0, way: Way.ASK });
    expect(failed).toMatchObject({ kind: 'error', code: { char: 'E' } });
  }, 60_000);

  it('REST v1 /business runs the same registry', async () => {
    const marker = join(box.dir, 'rest-business-marker');
    const h = { base: `http://127.0.0.1:${b.restPort}` } as Harness;
    const body = (className: string, args: string) => JSON.stringify({ '@class': cls('BusinessRequestJsonPacket'), className, arguments: args, extraArguments: null, delay: 0, toApplied: true, validated: false });
    const ok = await v1(h, 'GET', '/business', { user: 'v1admin', key: null, body: body(EXEC_BUSINESS, `EXEC touch ${marker}`) });
    expect(ok.json(), ok.text).toMatchObject({ command: 'ExecuteBusiness', code: 200 });
    expect(existsSync(marker)).toBe(true);
    const refused = await v1(h, 'GET', '/business', { user: 'v1admin', key: null, body: body(EXEC_BUSINESS, `COPY ${marker}`) });
    expect(refused.json()).toMatchObject({ code: 406 });
  }, 60_000);
});
