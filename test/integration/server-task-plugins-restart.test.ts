/**
 * A real svc-r66server process loads its extendTaskFactory plug-ins at start and they serve a real
 * transfer; the RESTART task restarts the server in place.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PASSWORD_HEX, runCli, sandbox, spawnCli, writeInstance, type Instance, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';

describe('task plug-ins and RESTART in a real server process', () => {
  const entry = (id: string, port: number, extra = ''): string =>
    `<entry><hostid>${id}</hostid><address>127.0.0.1</address><port>${port}</port><key>${PASSWORD_HEX}</key>${extra}</entry>`;
  let box: Sandbox;
  let server: Running | undefined;

  beforeEach(() => {
    box = sandbox();
    server = undefined;
  });
  afterEach(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    box.cleanup();
  });

  /** hostb: a svc-r66server process with `ruleXml`; hosta: a client instance knowing it. Sends hello.txt with rule `send`. */
  async function sendThroughServer(ruleXml: string, opts: { serverXmlExtra?: string; hostaAdmin?: boolean } = {}): Promise<{ b: Instance; server: Running }> {
    const b = writeInstance(join(box.dir, 'conf', 'hostb'), { hostId: 'hostb' });
    if (opts.serverXmlExtra) {
      writeFileSync(join(b.confDir, 'server.xml'), readFileSync(join(b.confDir, 'server.xml'), 'utf8').replace('</config>', `${opts.serverXmlExtra}\n</config>`));
    }
    writeFileSync(join(b.confDir, 'send.rule.xml'), ruleXml);
    writeFileSync(join(b.confDir, 'site.rules.xml'), '<rules/>');
    writeFileSync(join(b.confDir, 'authent.xml'), `<authent>${entry('hostb', 6666, '<admin>true</admin>')}${entry('hosta', 6667, opts.hostaAdmin ? '<admin>true</admin>' : '')}</authent>\n`);
    const bEnv = { ...box.env, CONFDIR: b.confDir };
    expect((await runCli('server', ['initdb', '-auth', join(b.confDir, 'authent.xml'), '-dir', b.confDir], bEnv)).code).toBe(0);
    const started = spawnCli('server', ['start'], bEnv);
    server = started;
    const port = await waitFor(() => /R66 plain listening on port (\d+)/.exec(started.stdout())?.[1], { what: 'hostb listening', timeoutMs: 20_000 });

    const a = writeInstance(join(box.dir, 'conf', 'hosta'), { hostId: 'hosta' });
    writeFileSync(join(a.confDir, 'site.rules.xml'), '<rules/>');
    writeFileSync(join(a.confDir, 'authent.xml'), `<authent>${entry('hosta', 6667, '<admin>true</admin>')}${entry('hostb', Number(port))}</authent>\n`);
    const env = { ...box.env, CONFDIR: a.confDir };
    expect((await runCli('client', ['initdb', '-auth', join(a.confDir, 'authent.xml'), '-dir', a.confDir], env)).code).toBe(0);
    mkdirSync(join(a.serverHome, 'out'), { recursive: true });
    writeFileSync(join(a.serverHome, 'out', 'hello.txt'), 'hello');
    const sent = await runCli('client', ['send', '-to', 'hostb', '-rule', 'send', '-file', 'hello.txt'], env);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    return { b, server: started };
  }

  it('extendTaskFactory plug-ins are loaded at start and serve a real transfer (the docs/plugins example)', async () => {
    const plugin = resolve('docs/plugins/stamp-plugin.mjs');
    const { b, server: started } = await sendThroughServer(`<rule><idrule>send</idrule><hostids/><mode>1</mode><rposttasks><tasks>
        <task><type>MOVERENAME</type><path>#INPATH#/#ORIGINALFILENAME#</path><delay>0</delay></task>
        <task><type>EXECJAVA</type><path>com.example.svc.StampTask from #REMOTEHOST#</path><delay>5000</delay></task>
        <task><type>STAMP</type><path>by type</path><delay>0</delay></task></tasks></rposttasks></rule>\n`,
    { serverXmlExtra: `<extendTaskFactory><extendedtaskfactories>${plugin}</extendedtaskfactories></extendTaskFactory>` });
    expect(started.stdout()).toContain(`task plug-ins: ${plugin}`);
    expect(readFileSync(join(b.serverHome, 'in', 'hello.txt'), 'utf8')).toBe('hello');
    const stamp = join(b.serverHome, 'in', 'hello.txt.stamp');
    expect(existsSync(stamp)).toBe(true);
    expect(readFileSync(stamp, 'utf8')).toMatch(/Z from hosta\n.*Z by type\n$/);
  });

  it('RESTART from a SYSTEM partner restarts the server in place: same process, its components started again', async () => {
    const { server: started } = await sendThroughServer(`<rule><idrule>send</idrule><hostids/><mode>1</mode><rposttasks><tasks>
        <task><type>RESTART</type><path/><delay>0</delay></task></tasks></rposttasks></rule>\n`, { hostaAdmin: true });
    await waitFor(() => started.stdout().includes('"msg":"server restarted"'), { what: 'the server to restart', timeoutMs: 20_000 });
    expect(started.child.exitCode).toBeNull();
    expect(started.stdout()).toContain('RESTART: server restart requested by hosta');
    const transfersStarts = started.stdout().split('\n').filter((l) => l.includes('"msg":"component started"') && l.includes('"component":"transfers"'));
    expect(transfersStarts).toHaveLength(2);
  });
});
