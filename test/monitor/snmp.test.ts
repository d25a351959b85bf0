/**
 * The SNMP agent and its notifications (monitoring.md Part B) checked with Debian's net-snmp tools:
 * snmpget/snmpwalk/snmpbulkwalk (v2c and v3 authPriv) against the agent, snmptrapd receiving the
 * traps (v2c) and informs (v3).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnmpConfig } from '../../src/config/index.js';
import { TransferMode } from '../../src/model/rule.js';
import { SnmpService, snmpUser } from '../../src/monitor/snmp/agent.js';
import { addRules, closeHosts, makeHostPair, rule, silent, type TestHost } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';
import { freeUdpPort, startTrapd } from './snmp-helpers.js';

const run = promisify(execFile);
const ROOT = '1.3.6.1.4.1.66666.66';

describe('SNMP agent, traps and informs (net-snmp tools)', () => {
  let dir: string;
  let a: TestHost;
  let b: TestHost;
  let trapd: Awaited<ReturnType<typeof startTrapd>>;
  let agentPort: number;
  let service: SnmpService;

  const config = (over: Partial<SnmpConfig>): SnmpConfig => ({
    file: path.join(dir, 'snmpconfig.xml'), localAddresses: [`udp:127.0.0.1/${agentPort}`], nbThread: 4, filtered: false, useTrap: true, trapInformLevel: 4,
    targets: [{ name: 'nms', domain: 'UdpIpv4', address: `127.0.0.1/${trapd.port}`, timeout: 500, retries: 1, isV2: true }],
    securities: [
      { name: 'opsUser', authProtocol: 'SHA', authPassphrase: 'authSecret123', privProtocol: 'PAES128', privPassphrase: 'privSecret123' },
      { name: 'old3des', authProtocol: 'MD5', authPassphrase: 'authSecret123', privProtocol: 'P3DES', privPassphrase: 'privSecret123' },
      { name: 'viewer', authProtocol: 'SHA', authPassphrase: 'viewSecret123', privProtocol: undefined, privPassphrase: undefined },
    ],
    warnings: [], ...over,
  });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'svc-snmp-'));
    trapd = await startTrapd(dir);
    ({ a, b } = await makeHostPair({ hooks: { snmp: () => service?.hub.notifier } }));
    await addRules([a, b], rule('send', TransferMode.SENDMODE));
    await addRules([a], rule('nob', TransferMode.SENDMODE));
    await addRules([a, b], rule('withsnmp', TransferMode.SENDMODE, { sPostTasks: [
      { type: 'SNMP', path: 'sent #TRANSFERID#', delay: 0 }, { type: 'SNMP', path: 'info-of-#RULE#', delay: 1 }, { type: 'SNMP', path: 'never', delay: 2 },
    ] }));
    agentPort = await freeUdpPort();
    service = new SnmpService(config({}), { hostId: 'hosta', port: 6666, store: () => a.store, engine: () => a.engine, connections: () => a.pool.size, minimalDelayMs: 0, logger: silent });
    await service.start();
  });
  afterAll(async () => {
    await service?.stop();
    await trapd?.stop();
    await closeHosts(a, b);
    await rm(dir, { recursive: true, force: true });
  });

  const target = (): string => `127.0.0.1:${agentPort}`;
  const v2 = (cmd: string, ...args: string[]) => run(cmd, ['-v2c', '-c', 'public', '-On', '-m', '', target(), ...args]);
  const v3 = (cmd: string, priv: string, ...args: string[]) =>
    run(cmd, ['-v3', '-u', 'opsUser', '-l', 'authPriv', '-a', 'SHA', '-A', 'authSecret123', '-x', 'AES', '-X', priv, '-On', '-m', '', '-t', '1', '-r', '0', target(), ...args]);

  it('sends coldStart with "Startup Service" at start (trap, v2c)', async () => {
    await waitFor(() => trapd.out().includes('Startup Service'), { timeoutMs: 5000, what: 'the coldStart trap' });
    expect(trapd.out()).toContain('.1.3.6.1.6.3.1.1.5.1');
    expect(service.hub.notifier).toBeDefined();
  });

  it('answers GET, GETNEXT and GETBULK on the private MIB and the system group (v2c)', async () => {
    const get = await v2('snmpget', `${ROOT}.1.2.0`, `${ROOT}.1.6.0`, '1.3.6.1.2.1.1.2.0', `${ROOT}.2.2.0`);
    expect(get.stdout).toContain(`.${ROOT}.1.2.0 = STRING: "hosta"`);
    expect(get.stdout).toContain(`.${ROOT}.1.6.0 = OID: .${ROOT}.1.1.4.6666`);
    expect(get.stdout).toContain(`.1.3.6.1.2.1.1.2.0 = OID: .${ROOT}`);
    expect(get.stdout).toContain(`.${ROOT}.2.2.0 = INTEGER: 1`);
    const walk = await v2('snmpwalk', ROOT);
    // The walk ends at the end of the agent's tree (net-snmp's tools print it as a last line).
    const lines = walk.stdout.trim().split('\n').filter((l) => !l.includes('No more variables'));
    expect(lines, walk.stdout).toHaveLength(6 + 26 + 13 + 24);
    expect(lines[0]).toContain(`.${ROOT}.1.1.0 = STRING:`);
    expect(lines.at(-1)).toContain(`.${ROOT}.4.24.0 = Gauge32: 0`);
    const bulk = await v2('snmpbulkwalk', ROOT);
    expect(bulk.stdout.trim().split('\n').filter((l) => !l.includes('No more variables'))).toHaveLength(lines.length);
  });

  it('live values: a transfer in error counts at once and sends the error and info-task traps', async () => {
    const before = (await v2('snmpget', `${ROOT}.2.7.0`, `${ROOT}.2.11.0`)).stdout;
    expect(before).toContain(`.${ROOT}.2.7.0 = Counter32: 0`);
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'hello');
    await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt' });
    const failed = await a.engine.transfer({ partner: 'hostb', rule: 'nob', file: 'f.txt' });
    const after = (await v2('snmpget', `${ROOT}.2.7.0`, `${ROOT}.2.11.0`, `${ROOT}.2.20.0`)).stdout;
    expect(after).toContain(`.${ROOT}.2.7.0 = Counter32: 2`);
    expect(after).toContain(`.${ROOT}.2.11.0 = Counter32: 1`);
    expect(after).toContain(`.${ROOT}.2.20.0 = Gauge32: 1`);
    await waitFor(() => trapd.out().includes('Transfer in error since'), { timeoutMs: 5000, what: 'the error trap' });
    expect(trapd.out()).toContain(`.${ROOT}.5.1.2`);
    await waitFor(() => trapd.out().includes('Task is INERROR'), { timeoutMs: 5000, what: 'the info-task trap' });
    expect(trapd.out()).toContain(`"${failed.record.specialId}"`);
  });

  it('SNMP task: delay 0 a warning with TransferId, delay 1 an info-task, other delays nothing (tasks.md §8)', async () => {
    await writeFile(path.join(a.dirs.out, 'g.txt'), 'hello');
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'withsnmp', file: 'g.txt' });
    expect(out.code.char).toBe('O');
    const id = out.record.specialId;
    await waitFor(() => trapd.out().includes(`"sent ${id}"`) && trapd.out().includes('"info-of-withsnmp"'), { timeoutMs: 5000, what: 'the SNMP task notifications' });
    expect(trapd.out()).toContain(`"TransferId:${id}"`);
    expect(trapd.out()).toContain(`.${ROOT}.5.1.3`);
    expect(trapd.out()).not.toContain('"never"');
  });

  it('SNMPv3: authPriv user answered, wrong privacy passphrase refused, unsupported 3DES user skipped', async () => {
    const ok = await v3('snmpget', 'privSecret123', `${ROOT}.1.2.0`);
    expect(ok.stdout).toContain('STRING: "hosta"');
    await expect(v3('snmpget', 'wrongSecret999', `${ROOT}.1.2.0`)).rejects.toThrow();
    expect(snmpUser({ name: 'old3des', authProtocol: 'MD5', authPassphrase: 'a', privProtocol: 'P3DES', privPassphrase: 'p' })).toMatch(/P3DES is not supported/);
  });

  it('SNMPv3 views (§B.3): a user without privacy sees the system group only, a user with privacy the whole tree and only with authPriv', async () => {
    const viewer = (cmd: string, ...args: string[]) =>
      run(cmd, ['-v3', '-u', 'viewer', '-l', 'authNoPriv', '-a', 'SHA', '-A', 'viewSecret123', '-On', '-m', '', '-t', '1', '-r', '0', target(), ...args]);
    const get = await viewer('snmpget', '1.3.6.1.2.1.1.1.0', `${ROOT}.1.2.0`);
    expect(get.stdout).toContain('.1.3.6.1.2.1.1.1.0 = STRING: "svc R66 SNMP"');
    expect(get.stdout).toContain(`.${ROOT}.1.2.0 = No Such Object available on this agent at this OID`);
    const walk = (await viewer('snmpwalk', '1.3.6.1')).stdout.trim().split('\n').filter((l) => !l.includes('No more variables'));
    expect(walk.length).toBeGreaterThan(0);
    expect(walk.every((l) => l.startsWith('.1.3.6.1.2.1.1.')), walk.join('\n')).toBe(true);
    const bulk = (await viewer('snmpbulkwalk', ROOT)).stdout;
    expect(bulk).not.toContain(`.${ROOT}.1.`);
    // The privacy user walks the private MIB too (the same count as v2c's public)...
    const full = (await v3('snmpwalk', 'privSecret123', '1.3.6.1')).stdout.trim().split('\n').filter((l) => !l.includes('No more variables'));
    expect(full.filter((l) => l.startsWith(`.${ROOT}.`))).toHaveLength(6 + 26 + 13 + 24);
    expect(full.length).toBe(walk.length + 6 + 26 + 13 + 24);
    // ...but not without privacy.
    await expect(run('snmpget', ['-v3', '-u', 'opsUser', '-l', 'authNoPriv', '-a', 'SHA', '-A', 'authSecret123', '-On', '-m', '', '-t', '1', '-r', '0', target(), '1.3.6.1.2.1.1.1.0'])).rejects.toThrow();
  });

  it('informs to an SNMPv3 target (user v3notify) and linkDown "Shutdown Service" at stop', async () => {
    const port = await freeUdpPort();
    const informs = new SnmpService(config({
      localAddresses: [`udp:127.0.0.1/${port}`], useTrap: false, trapInformLevel: 3,
      targets: [{ name: 'nms-v3', domain: 'UdpIpv4', address: `127.0.0.1/${trapd.port}`, timeout: 500, retries: 2, isV2: false }],
    }), { hostId: 'hosta', port: 6666, store: () => a.store, engine: () => undefined, connections: () => 0, minimalDelayMs: 0, logger: silent });
    await informs.start();
    await informs.hub.notifier!.notify('warning', 'Block Order received', 'hostb');
    await waitFor(() => trapd.out().includes('Block Order received'), { timeoutMs: 5000, what: 'the warning inform' });
    await informs.stop();
    await waitFor(() => trapd.out().includes('Shutdown Service'), { timeoutMs: 5000, what: 'the linkDown notification' });
    expect(trapd.out()).toContain('.1.3.6.1.6.3.1.1.5.3');
  });
});
