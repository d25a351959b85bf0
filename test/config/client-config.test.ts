import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadClientConfig, loadSubmitClientConfig, writeClientConfig, type ClientConfig } from '../../src/config/index.js';
import { makeInstance, type Instance } from './instance.js';

let inst: Instance;
beforeEach(async () => { inst = await makeInstance(); });
afterEach(async () => { await inst.cleanup(); });

const SPOOLED = `<spooleddaemon><stopfile>/tmp/stop</stopfile><logWarn>False</logWarn>
  <spooled><name>w1</name><to>partnerA</to><to>partnerB</to><rule>send</rule><statusfile>/tmp/w1.status</statusfile>
    <directory>/tmp/out1</directory><directory>/tmp/out2</directory><regex>.*\\.txt</regex><recursive>true</recursive>
    <elapse>2000</elapse><submit>false</submit><limitParallel>3</limitParallel><waarp>hq</waarp><minimalSize>10</minimalSize><ignoreAlreadyUsed>1</ignoreAlreadyUsed></spooled>
  <spooled><name>broken</name><rule>send</rule></spooled>
</spooleddaemon>`;

async function roundTrip(c: ClientConfig): Promise<ClientConfig> {
  const out = join(inst.dir, 'written-client.xml');
  await writeClientConfig(out, c);
  return loadClientConfig(out, { mode: c.mode });
}

describe('client.xml (config.md §4, sample §13.2)', () => {
  it('loads the sample and round-trips', async () => {
    const c = await loadClientConfig(await inst.sample('client.xml'));
    expect(c).toMatchObject({ hostId: 'svc1', sslHostId: 'svc1-ssl', mode: 'full', clientTaskRunnerNoDb: false, spooledDaemon: null });
    expect(c.limits).toMatchObject({ serverThread: 1, clientThread: 1, runLimit: 2 });
    expect(c.ssl?.trustUseClientAuthenticate).toBe(true);
    expect(c.db?.dialect).toBe('postgresql');
    expect(c.db?.autoUpgrade).toBe(false);
    const again = await roundTrip(c);
    expect({ ...again, file: '' }).toEqual({ ...c, file: '' });
  });

  it('reads spooleddaemon watchers, skipping incomplete ones with a warning', async () => {
    const c = await loadClientConfig(await inst.sample('client.xml', (x) => x.replace('</config>', `${SPOOLED}</config>`)));
    expect(c.spooledDaemon?.logWarn).toBe(false);
    expect(c.spooledDaemon?.spooled).toHaveLength(1);
    expect(c.spooledDaemon?.spooled[0]).toMatchObject({
      name: 'w1', to: ['partnerA', 'partnerB'], directories: ['/tmp/out1', '/tmp/out2'], regex: '.*\\.txt', recursive: true, elapse: 2000,
      submit: false, parallel: true, limitParallel: 3, info: 'noinfo', block: 65536, waarpHosts: ['hq'], elapseWaarp: 5000, minimalSize: 10, ignoreAlreadyUsed: true,
    });
    expect(c.warnings.join('\n')).toMatch(/<spooled> skipped/);
    const again = await roundTrip(c);
    expect(again.spooledDaemon).toEqual(c.spooledDaemon);
  });

  it('ClientNoDB: taskrunnernodb, authentfile required', async () => {
    const noDb = (x: string) => x.replace(/<db>[\s\S]*?<\/db>/, '<db><taskrunnernodb>True</taskrunnernodb></db>').replace('<client/>', '<client><taskrunnernodb>true</taskrunnernodb></client>');
    const err = await loadClientConfig(await inst.sample('client.xml', noDb)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/<config\/identity\/authentfile>: missing/);
    const c = await loadClientConfig(await inst.sample('client.xml', (x) => noDb(x).replace('</identity>', '<authentfile>/x/authent.xml</authentfile></identity>')));
    expect(c).toMatchObject({ db: null, taskRunnerNoDb: true, clientTaskRunnerNoDb: true, authentFile: '/x/authent.xml' });
    expect((await roundTrip(c)).taskRunnerNoDb).toBe(true);
  });

  it('SubmitClient reading keeps only blocksize of limit and ignores ssl/business', async () => {
    const f = await inst.sample('client.xml', (x) => x.replace('<runlimit>2</runlimit>', '<runlimit>2</runlimit><blocksize>4096</blocksize>').replace('</config>', '<business><businessid>b</businessid></business></config>'));
    const c = await loadSubmitClientConfig(f);
    expect(c).toMatchObject({ mode: 'submit', ssl: null, business: [] });
    expect(c.limits.blockSize).toBe(4096);
    expect(c.limits.runLimit).toBe(1000);
    expect(c.db?.server).toBe('jdbc:postgresql://dbhost:5432/svc_r66');
    const again = await roundTrip(c);
    expect({ ...again, file: '' }).toEqual({ ...c, file: '' });
  });

  it('a client without sslhostid has no ssl section', async () => {
    const c = await loadClientConfig(await inst.sample('client.xml', (x) => x.replace('<sslhostid>svc1-ssl</sslhostid>', '')));
    expect(c.ssl).toBeNull();
  });
});
