/**
 * A whole server started from its server.xml with <monitoring>, <pushMonitor> and
 * server/snmpconfig: the metrics and health endpoint answer, the push receiver gets the host's
 * transfer records, the SNMP agent answers; SVC_MONITORING=off starts none of them.
 */
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { connect, createServer, type Socket } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../../src/config/index.js';
import { runDatabaseTool } from '../../src/server/database-tool.js';
import { ServerRuntime } from '../../src/server/runtime.js';
import { sandbox, writeInstance, type Instance, type Sandbox } from '../cli/cli-helpers.js';
import { silent } from '../helpers/hosts.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, type Receiver } from './push-helpers.js';

const run = promisify(execFile);

async function freeTcpPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

function connectTcp(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

let box: Sandbox;
let inst: Instance;
let receiver: Receiver;
let runtime: ServerRuntime | undefined;

beforeEach(async () => {
  box = sandbox();
  inst = writeInstance(join(box.dir, 'conf', 'hosta'));
  receiver = await startReceiver();
});
afterEach(async () => {
  await runtime?.stop();
  runtime = undefined;
  await receiver.close();
  box.cleanup();
});

async function startServer(metricsPort: number, snmpPort: number, env: NodeJS.ProcessEnv = {}): Promise<ServerRuntime> {
  const file = join(inst.confDir, 'server.xml');
  const snmpFile = join(inst.confDir, 'snmpconfig.xml');
  writeFileSync(snmpFile, `<snmpconfig><config><localaddress>udp:127.0.0.1/${snmpPort}</localaddress><trapinformlevel>0</trapinformlevel></config></snmpconfig>`);
  writeFileSync(file, readFileSync(file, 'utf8')
    .replace('</server>', `<snmpconfig>${snmpFile}</snmpconfig></server>`)
    .replace('</config>', `<security><maxconnectionsperaddress>1</maxconnectionsperaddress></security><monitoring><metricsport>${metricsPort}</metricsport><metricspath>/m</metricspath></monitoring>
      <pushMonitor><url>http://127.0.0.1:${receiver.port}</url><endpoint>/log</endpoint><delay>500</delay></pushMonitor></config>`));
  await runDatabaseTool({ configFile: file, side: 'server', initdb: true, authFile: join(inst.confDir, 'authent.xml'), log: silent });
  const saved = process.env.SVC_MONITORING;
  if (env.SVC_MONITORING !== undefined) process.env.SVC_MONITORING = env.SVC_MONITORING;
  try {
    const r = new ServerRuntime(await loadServerConfig(file), silent);
    await r.start();
    return r;
  } finally {
    if (saved === undefined) delete process.env.SVC_MONITORING;
    else process.env.SVC_MONITORING = saved;
  }
}

describe('monitoring in a running server', () => {
  it('metrics, health, push monitoring and the SNMP agent from server.xml', async () => {
    const metricsPort = await freeTcpPort();
    const snmpPort = await freeTcpPort();
    runtime = await startServer(metricsPort, snmpPort);
    expect(runtime.describe().join('\n')).toContain(`metrics on http://127.0.0.1:${metricsPort}/m`);
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/m`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('svc_r66_scheduler_queue{hostid="hosta"} 0');
    const health = await fetch(`http://127.0.0.1:${metricsPort}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'up', database: 'up', listeners: { status: 'up' } });

    await runtime.store.runner.insert(transferRecord(42n, { ownerReq: 'hosta', requester: 'hosta', requested: 'partnera', stop: new Date() }));
    await waitFor(() => receiver.received.some((r) => r.body.includes('"uniqueId":"hosta.hosta.partnera.42"')), { timeoutMs: 10_000, what: 'the push of transfer 42' });
    expect(receiver.received[0]!.url).toBe('/log');

    const get = await run('snmpget', ['-v2c', '-c', 'public', '-On', '-m', '', `127.0.0.1:${snmpPort}`, '1.3.6.1.4.1.66666.66.1.2.0']);
    expect(get.stdout).toContain('STRING: "hosta"');
  });

  it('incoming R66 connections count in the metrics and in nbNetworkConnection; refused ones in the metrics', async () => {
    const metricsPort = await freeTcpPort();
    const snmpPort = await freeTcpPort();
    runtime = await startServer(metricsPort, snmpPort);
    const r66Port = Number(/R66 plain listening on port (\d+)/.exec(runtime.describe().join('\n'))?.[1]);
    const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${metricsPort}/m`)).text();
    const connected: Socket[] = [];
    try {
      // maxconnectionsperaddress is 1 here: the second socket from 127.0.0.1 is refused.
      for (let i = 0; i < 2; i++) connected.push(await connectTcp(r66Port));
      await waitFor(async () => (await scrape()).includes('svc_r66_connections_refused_total{hostid="hosta"} 1'), { timeoutMs: 5000, what: 'the refused connection counted' });
      expect(await scrape()).toContain('svc_r66_connections_open{direction="incoming",hostid="hosta"} 1');
      const get = await run('snmpget', ['-v2c', '-c', 'public', '-On', '-m', '', `127.0.0.1:${snmpPort}`, '1.3.6.1.4.1.66666.66.2.26.0']);
      expect(get.stdout).toContain('Gauge32: 1');
    } finally {
      for (const s of connected) s.destroy();
    }
    await waitFor(async () => (await scrape()).includes('svc_r66_connections_open{direction="incoming",hostid="hosta"} 0'), { timeoutMs: 5000, what: 'the closed connection uncounted' });
  });

  it('an SNMP port already taken leaves SNMP off with a warning; the server runs', async () => {
    const taken = createSocket('udp4');
    await new Promise<void>((resolve) => taken.bind(0, '127.0.0.1', resolve));
    try {
      const metricsPort = await freeTcpPort();
      runtime = await startServer(metricsPort, taken.address().port);
      expect(runtime.describe().join('\n')).not.toContain('SNMP agent');
      expect((await fetch(`http://127.0.0.1:${metricsPort}/health`)).status).toBe(200);
    } finally {
      taken.close();
    }
  });

  it('SVC_MONITORING=off: no metrics listener, no push', async () => {
    const metricsPort = await freeTcpPort();
    runtime = await startServer(metricsPort, await freeTcpPort(), { SVC_MONITORING: 'off' });
    await expect(fetch(`http://127.0.0.1:${metricsPort}/m`)).rejects.toThrow();
    expect(runtime.describe().join('\n')).not.toContain('metrics on');
  });
});
