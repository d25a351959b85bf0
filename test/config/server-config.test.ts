import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadServerConfig, Role, writeServerConfig, type ServerConfig } from '../../src/config/index.js';
import { makeInstance, type Instance } from './instance.js';

let inst: Instance;
beforeEach(async () => { inst = await makeInstance(); });
afterEach(async () => { await inst.cleanup(); });

/** The sample server.xml with one replacement applied. */
const sampleWith = (from: string | RegExp, to: string) => inst.sample('server.xml', (x) => x.replace(from, to));

async function loadError(file: string): Promise<ConfigError> {
  const err = await loadServerConfig(file).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe('server.xml sample (config.md §13.1)', () => {
  it('loads every section with its values', async () => {
    const c = await loadServerConfig(await inst.sample('server.xml'));
    expect(c.hostId).toBe('svc1');
    expect(c.sslHostId).toBe('svc1-ssl');
    expect(c.cryptoKeyFile).toBe(join(inst.certs, 'cryptokey.des'));
    expect(c.identity.cryptoKey.toString('hex')).toBe('d3074a6b3108a22c');
    expect(c.server.adminName).toBe('admin');
    expect(c.server.adminPassword).toBe('password');
    expect(c.server.useSsl && c.server.useNoSsl).toBe(true);
    expect(c.network).toMatchObject({ serverPort: 6666, serverSslPort: 6667, serverHttpPort: 8066, serverHttpsPort: 8067, serverAddresses: [] });
    expect(c.ssl).toMatchObject({ keyStorePassword: 'storepw', trustUseClientAuthenticate: true });
    expect(c.directories.virtual).toEqual({ in: '/in', out: '/out', arch: '/arch', work: '/work', conf: '/conf' });
    expect(c.directories.in).toBe(join(c.directories.serverHome, 'in'));
    expect((await stat(c.directories.work)).isDirectory()).toBe(true);
    expect(c.limits).toMatchObject({ runLimit: 500, timeoutCon: 10000, delayRetry: 10000, digest: 7, blockSize: 1048576, delayLimit: 1000, connLimit: 0 });
    expect(c.db).toEqual({ driver: 'postgresql', dialect: 'postgresql', server: 'jdbc:postgresql://dbhost:5432/svc_r66', user: 'svc', password: 'svcdbpw', autoUpgrade: true });
    expect(c.rest).toHaveLength(1);
    expect(c.rest[0]).toMatchObject({ port: 8088, address: '0.0.0.0', authenticated: true, signature: true, timeLimit: 30000 });
    expect(c.rest[0]?.sigKey?.length).toBe(64);
    expect(Object.values(c.rest[0]?.methods ?? {})).toEqual(Array(12).fill(15));
    expect(c.business).toEqual(['partnerA']);
    expect(c.roles).toEqual([{ hostId: 'svc1', roles: Role.FULLADMIN }, { hostId: 'partnerA', roles: Role.PARTNER | Role.LOGCONTROL }]);
    expect(c.aliases).toEqual([{ realId: 'partnerA', aliasIds: ['pa', 'pa-prod'] }]);
    expect(c.pushMonitor).toMatchObject({ kind: 'rest', url: 'http://monitor.example:8999', endpoint: '/log', delay: 1000 });
    expect(c.server.httpModel).toBe(0);
  });

  it('read -> write -> read gives the same configuration', async () => {
    const first = await loadServerConfig(await inst.sample('server.xml'));
    const out = join(inst.dir, 'written.xml');
    await writeServerConfig(out, first);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const second = await loadServerConfig(out);
    const strip = (c: ServerConfig) => ({ ...c, file: '' });
    expect(strip(second)).toEqual(strip(first));
    expect(await readFile(out, 'utf8')).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<config>/);
  });
});

describe('server.xml loader quirks', () => {
  it('folds whitespace, ignores unknown elements, takes the first duplicate, honours ISO-8859-1', async () => {
    const f = await sampleWith('<dbuser>svc</dbuser>', '<dbuser>  sv\u00e9\n\t c </dbuser><dbuser>other</dbuser><unknownthing>1</unknownthing>');
    const latin = (await readFile(f, 'utf8')).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
    await writeFile(f, Buffer.from(latin, 'latin1'));
    const c = await loadServerConfig(f);
    expect(c.db?.user).toBe('sv\u00e9 c');
  });

  it('applies the limit defaults and normalisations (trap T7)', async () => {
    const f = await sampleWith(/<limit>[\s\S]*?<\/limit>/, '<limit><runlimit>1</runlimit><connlimit>50</connlimit><digest>SHA512</digest><delaycommand>55</delaycommand><timeoutcon>1234</timeoutcon><percentdecrease>20</percentdecrease><blocksize>1GB</blocksize></limit>');
    const loaded = await loadServerConfig(f);
    const l = loaded.limits;
    // Text where a number belongs takes the default, as in the original, but no longer silently.
    expect(loaded.warnings.join('\n')).toMatch(/<config\/limit\/digest> "SHA512" is not a number; expected an integer from 0 to 7 .*; the default applies/);
    expect(loaded.warnings.join('\n')).toMatch(/<config\/limit\/blocksize> "1GB" is not a number/);
    expect(l).toMatchObject({ runLimit: 2, connLimit: 0, digest: 2, delayCommand: 100, timeoutCon: 1230, percentDecrease: 0.2, blockSize: 65536, memoryLimit: 1073741824, globalLimit: 107374182400, gapRestart: 30, delayThrottle: 1000000, limitLowBandwidth: 1048576 });
    // Out of range is refused (the original took CRC32 for it): decision 0039.
    expect((await loadError(await sampleWith(/<digest>7<\/digest>/, '<digest>9</digest>'))).message).toMatch(/<config\/limit\/digest>: 9 is out of range; expected an integer from 0 to 7/);
  });

  it('dbcheck wins over autoUpgrade (trap T8); no db section means no database', async () => {
    expect((await loadServerConfig(await sampleWith('<autoUpgrade>true</autoUpgrade>', '<autoUpgrade>true</autoUpgrade><dbcheck>False</dbcheck>'))).db?.autoUpgrade).toBe(false);
    const noDb = await sampleWith(/<db>[\s\S]*?<\/db>/, '');
    expect((await loadError(noDb)).message).toMatch(/identity\/authentfile.*partner file/);
    const withAuth = await inst.sample('server.xml', (x) => x.replace(/<db>[\s\S]*?<\/db>/, '').replace('</identity>', '<authentfile>authent.xml</authentfile></identity>'));
    const c = await loadServerConfig(withAuth);
    expect(c.db).toBeNull();
    expect(c.authentFile).toBe(join(process.cwd(), 'authent.xml'));
  });

  it('ALL stops the restmethod list (T6); serverrestport is accepted as alias with a warning (T2)', async () => {
    const f = await sampleWith('<restcrud>CRUD</restcrud>\n    </restmethod>', '<restcrud>R</restcrud></restmethod><restmethod><restname>Bogus</restname><restcrud>C</restcrud></restmethod>');
    expect((await loadServerConfig(f)).rest[0]?.methods.DbRule).toBe(2);
    const alias = await loadServerConfig(await sampleWith('<restport>8088</restport>', '<serverrestport>8089</serverrestport>'));
    expect(alias.rest[0]?.port).toBe(8089);
    expect(alias.warnings.join()).toMatch(/serverrestport/);
    const named = await loadServerConfig(await sampleWith('<restname>ALL</restname>', '<restname>DbRule|Log  Server</restname>'));
    expect(named.rest[0]?.methods).toMatchObject({ DbRule: 15, Log: 15, Server: 15, DbHostAuth: 0 });
    const unknown = await loadError(await sampleWith('<restname>ALL</restname>', '<restname>DbRules</restname>'));
    expect(unknown.message).toMatch(/<config\/rest\/restmethod\/restname>.*unknown REST function "DbRules"/);
  });

  it('finds restsigkey under serverhome/conf when not found as given, else fails', async () => {
    const f = await sampleWith(join(inst.certs, 'restsigning.key'), 'sig-test.key');
    expect((await loadError(f)).message).toMatch(/<config\/rest\/restsigkey>: cannot read a non-empty key from sig-test\.key/);
    await writeFile(join(inst.home, 'conf', 'sig-test.key'), 'k');
    expect((await loadServerConfig(f)).rest[0]?.sigKeyFile).toBe(join(inst.home, 'conf', 'sig-test.key'));
  });
});

describe('server.xml errors name file, element and line, never a secret', () => {
  it('malformed XML', async () => {
    const f = await sampleWith('</identity>', '</identiti>');
    const e = await loadError(f);
    expect(e.file).toBe(f);
    expect(e.line).toBe(8);
    expect(e.message).toMatch(/server\.xml:8: malformed XML/);
  });

  it('DOCTYPE', async () => {
    const f = await sampleWith('<config ', '<!DOCTYPE config [<!ENTITY x "y">]>\n<config ');
    expect((await loadError(f)).message).toMatch(/server\.xml:2: DOCTYPE declarations are not allowed/);
  });

  it('missing hostid, wrong root, missing mandatory directory, missing httpadmin', async () => {
    expect((await loadError(await sampleWith('<hostid>svc1</hostid>', ''))).message).toMatch(/server\.xml:4 <config\/identity\/hostid>: missing or empty/);
    expect((await loadError(await inst.write('x.xml', '<configuration/>'))).message).toMatch(/root element is <configuration>, expected <config>/);
    const noIn = await loadError(await sampleWith('<in>in</in>', '<in> </in>'));
    expect(noIn.element).toBe('config/directory/in');
    expect(noIn.line).toBeGreaterThan(1);
    expect((await loadError(await sampleWith(inst.admin, join(inst.dir, 'nope')))).message).toMatch(/<config\/server\/httpadmin>: file not found/);
  });

  it('directory outside serverhome is refused', async () => {
    expect((await loadError(await sampleWith('<arch>arch</arch>', `<arch>${inst.certs}</arch>`))).message).toMatch(/<config\/directory\/arch>.*outside serverhome/);
  });

  it('undecryptable serverpasswd and unreadable or short cryptokey', async () => {
    const bad = await loadError(await sampleWith('5a4b7c6a66065cbb622acefec8c3a302', '0c5197e36a3d31505460290486b3c15x'));
    expect(bad.message).toMatch(/<config\/server\/serverpasswd>: not an encrypted password/);
    expect(bad.message).not.toContain('0c5197e3');
    await writeFile(join(inst.certs, 'short.des'), 'abc');
    const short = await loadError(await sampleWith('cryptokey.des', 'short.des'));
    expect(short.message).toMatch(/<config\/identity\/cryptokey>: not a DES cryptokey: 3 bytes/);
    expect((await loadError(await sampleWith('cryptokey.des', 'absent.des'))).message).toMatch(/cryptokey file file not found|not found/);
    await writeFile(join(inst.certs, 'cryptokey.des'), Buffer.from('0102030405060708', 'hex'));
    const wrong = await loadError(await inst.sample('server.xml'));
    expect(wrong.message).toMatch(/serverpasswd>: cannot decrypt the password: wrong cryptokey/);
    expect(wrong.message).not.toContain('password</');
  });

  it('dbpasswd empty (T14), usessl without sslhostid (T3), both listeners off', async () => {
    expect((await loadError(await sampleWith('<dbpasswd>svcdbpw</dbpasswd>', '<dbpasswd/>'))).element).toBe('config/db/dbpasswd');
    expect((await loadError(await sampleWith('<sslhostid>svc1-ssl</sslhostid>', ''))).message).toMatch(/usessl is true but/);
    const off = await inst.sample('server.xml', (x) => x.replace('<usenossl>True</usenossl>', '<usenossl>0</usenossl>').replace('<usessl>True</usessl>', '<usessl>no</usessl>'));
    expect((await loadError(off)).message).toMatch(/both usenossl and usessl are false/);
  });

  it('ports out of range name the element; a non-number takes the default; a negative HTTP port is off', async () => {
    const big = await loadError(await sampleWith('<serverport>6666</serverport>', '<serverport>99999</serverport>'));
    expect(big.element).toBe('config/network/serverport');
    expect(big.message).toMatch(/<config\/network\/serverport>: 99999 is out of range; expected an integer from 0 to 65535 \(TCP port\)/);
    expect((await loadError(await sampleWith('<serverport>6666</serverport>', '<serverport>-5</serverport>'))).element).toBe('config/network/serverport');
    expect((await loadError(await sampleWith('<restport>8088</restport>', '<restport>70000</restport>'))).element).toBe('config/rest/restport');
    expect((await loadServerConfig(await sampleWith('<serverport>6666</serverport>', '<serverport>abc</serverport>'))).network.serverPort).toBe(6666);
    expect((await loadServerConfig(await sampleWith('<serverhttpport>8066</serverhttpport>', '<serverhttpport>-1</serverhttpport>'))).network.serverHttpPort).toBe(-1);
  });

  it('pushMonitor with endpoint and index, or markup in a value', async () => {
    expect((await loadError(await sampleWith('<endpoint>/log</endpoint>', '<endpoint>/log</endpoint><index>x</index>'))).message).toMatch(/both <endpoint> and <index>/);
    expect((await loadError(await sampleWith('<endpoint>/log</endpoint>', '<endpoint>&lt;script&gt;</endpoint>'))).element).toBe('config/pushMonitor/endpoint');
  });
});
