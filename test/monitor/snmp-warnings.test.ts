/**
 * The warning notifications for trouble inside the server (monitoring.md §B.5), received by Debian's
 * snmptrapd: a frame for an unknown local channel (`No LocalChannelReference`), a command that fails
 * with an error the server did not expect (`Unexpected exception`), and memory nearly exhausted
 * (`OOME so shutdown and restart`, from the agent's memory watch; SVC_SNMP_MEMORY_WARN set very low
 * here so that the real heap of this process is over it).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { SnmpService } from '../../src/monitor/snmp/agent.js';
import { MemoryWatch, memoryWarnRatio, type MemorySample } from '../../src/monitor/snmp/memory-watch.js';
import { notifyUnexpected } from '../../src/net/alerts.js';
import { R66Error } from '../../src/model/r66-error.js';
import { encodeFrame } from '../../src/protocol/index.js';
import { silent } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';
import { makeHost, makePair, type TestHost } from '../net/harness.js';
import { RawPeer } from '../net/raw-peer.js';
import { freeUdpPort, startTrapd } from './snmp-helpers.js';

const ROOT = '1.3.6.1.4.1.66666.66';

describe('SNMP warnings: unknown local channel, unexpected exception, memory (snmptrapd)', () => {
  let dir: string;
  let trapd: Awaited<ReturnType<typeof startTrapd>>;
  let service: SnmpService;
  const hosts: TestHost[] = [];
  const saved = process.env.SVC_SNMP_MEMORY_WARN;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'svc-snmp-warn-'));
    trapd = await startTrapd(dir);
    process.env.SVC_SNMP_MEMORY_WARN = '0.0001';
    service = new SnmpService({
      file: path.join(dir, 'snmpconfig.xml'), localAddresses: [`udp:127.0.0.1/${await freeUdpPort()}`], nbThread: 4, filtered: false, useTrap: true, trapInformLevel: 3,
      targets: [{ name: 'nms', domain: 'UdpIpv4', address: `127.0.0.1/${trapd.port}`, timeout: 500, retries: 1, isV2: true }], securities: [], warnings: [],
    }, { hostId: 'hostb', port: 6666, store: () => { throw new Error('no store in this test'); }, engine: () => undefined, connections: () => 0, minimalDelayMs: 0, logger: silent });
    await service.start();
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.SVC_SNMP_MEMORY_WARN;
    else process.env.SVC_SNMP_MEMORY_WARN = saved;
    for (const h of hosts.splice(0)) await h.close();
    await service?.stop();
    await trapd?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('memory over the limit share: "OOME so shutdown and restart" with the heap figures, once', async () => {
    await waitFor(() => trapd.out().includes('"OOME so shutdown and restart"'), { timeoutMs: 5000, what: 'the memory warning' });
    expect(trapd.out()).toContain(`.${ROOT}.5.1.3.1 = STRING: "TrapWarning"`);
    expect(trapd.out()).toMatch(/"JavaScript heap \d+ MiB used of its \d+ MiB limit \(\d+%\)"/);
  });

  it('a frame for a local channel that does not exist: ConnectionError back and "No LocalChannelReference" with the packet type', async () => {
    const b = await makeHost('hostb', [], { listen: true, notify: service.hub.notify });
    hosts.push(b);
    const peer = await RawPeer.open(b.listener!.port);
    try {
      peer.write(encodeFrame(424242, 77, { kind: 'test', header: 'MSG', middle: 'lost', counter: 100 }));
      const answer = await peer.next();
      expect(answer?.packet.kind).toBe('connectionError');
      expect(answer?.frame.dstId).toBe(77);
    } finally {
      peer.destroy();
    }
    await waitFor(() => trapd.out().includes('"No LocalChannelReference"'), { timeoutMs: 5000, what: 'the unknown channel warning' });
    expect(trapd.out()).toContain('"TESTPACKET"');
  });

  it('a command failing with an error the server did not expect: Error I to the partner and "Unexpected exception" with the message', async () => {
    const { a, b } = await makePair({ notify: service.hub.notify });
    hosts.push(a, b);
    b.ctx.handlers.register('test', async () => { throw new TypeError('handler bug: x is undefined'); });
    const err = await sendMessage(a.pool, 'hostb', 'hello').then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(R66Error);
    expect((err as R66Error).fromPartner).toBe(true);
    expect((err as R66Error).code).toBe(ErrorCode.Internal);
    await waitFor(() => trapd.out().includes('"Unexpected exception"'), { timeoutMs: 5000, what: 'the unexpected exception warning' });
    expect(trapd.out()).toContain('"TypeError: handler bug: x is undefined"');
    // A failed allocation that JavaScript lets code catch is the original's OOME case.
    notifyUnexpected(service.hub.notify, new RangeError('Array buffer allocation failed'));
    await waitFor(() => trapd.out().includes('"RangeError: Array buffer allocation failed"'), { timeoutMs: 5000, what: 'the allocation failure warning' });
    expect(trapd.out().split('"OOME so shutdown and restart"').length - 1).toBe(2);
  });

  it('the memory watch warns once per episode: again only after the use fell 10 points below the share', () => {
    let used = 50;
    const sample = (): MemorySample => ({ heapUsed: used, heapLimit: 100, rss: 0, rssLimit: 0 });
    const sent: string[] = [];
    const watch = new MemoryWatch({ ratio: 0.9, sample, onLow: (d) => sent.push(d) });
    for (const u of [50, 91, 95, 85, 92, 79, 90]) { used = u; watch.check(); }
    expect(sent).toHaveLength(2);
    // A container limit counts too.
    const rss = new MemoryWatch({ sample: () => ({ heapUsed: 1, heapLimit: 100, rss: 95 * 2 ** 20, rssLimit: 100 * 2 ** 20 }) });
    expect(rss.check()).toBe('resident memory 95 MiB of the 100 MiB memory limit (95%)');
    expect([memoryWarnRatio({ SVC_SNMP_MEMORY_WARN: '80%' }), memoryWarnRatio({ SVC_SNMP_MEMORY_WARN: '0.75' }), memoryWarnRatio({ SVC_SNMP_MEMORY_WARN: 'x' }), memoryWarnRatio({})]).toEqual([0.8, 0.75, undefined, undefined]);
  });
});
