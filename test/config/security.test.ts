// server.xml `security` (ours) and a `rest` section without restsigkey (issue 21 item 7).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, defaultSecurity, loadServerConfig, writeServerConfig } from '../../src/config/index.js';
import { makeInstance, type Instance } from './instance.js';

let inst: Instance;
beforeEach(async () => { inst = await makeInstance(); });
afterEach(async () => { await inst.cleanup(); });

describe('server.xml security and restsigkey', () => {
  it('loads a rest section with authentication and no restsigkey, with a warning (Basic only)', async () => {
    const f = await inst.sample('server.xml', (x) => x.replace(/<restsigkey>[^<]*<\/restsigkey>/, ''));
    const c = await loadServerConfig(f);
    expect(c.rest[0]).toMatchObject({ authenticated: true, signature: true, sigKey: undefined, sigKeyFile: undefined });
    expect(c.warnings.join('\n')).toMatch(/no restsigkey; REST accepts Basic authentication only/);
  });

  it('reads the security section over the defaults, and names a bad value', async () => {
    const plain = await loadServerConfig(await inst.sample('server.xml'));
    expect(plain.security).toEqual(defaultSecurity(plain.limits.timeoutCon));
    const f = await inst.sample('server.xml', (x) => x.replace('</config>', '<security><maxconnectionsperaddress>7</maxconnectionsperaddress><receivedfilemode>0600</receivedfilemode><restlockout>1000</restlockout></security></config>'));
    expect((await loadServerConfig(f)).security).toMatchObject({ maxConnectionsPerAddress: 7, receivedFileMode: 0o600, restLockoutMs: 1000, maxConnections: 1000 });
    // Written back with the values that differ from the defaults, and read again the same.
    const loaded = await loadServerConfig(f);
    const copy = await inst.write('copy.xml', '');
    await writeServerConfig(copy, loaded);
    expect((await loadServerConfig(copy)).security).toEqual(loaded.security);
    const bad = await inst.sample('server.xml', (x) => x.replace('</config>', '<security><receivedfilemode>rw-r-----</receivedfilemode></security></config>'));
    const err = await loadServerConfig(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/<config\/security\/receivedfilemode>.*expected octal digits/);
    const zero = await inst.sample('server.xml', (x) => x.replace('</config>', '<security><maxconnections>0</maxconnections></security></config>'));
    expect(((await loadServerConfig(zero).catch((e: unknown) => e)) as Error).message).toMatch(/maxconnections>: 0 is out of range; expected an integer from 1 to 100000/);
  });
});
