import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, decryptPasswordHex, loadAuthentFile, writeAuthentFile } from '../../src/config/index.js';
import { makeInstance, SAMPLE_KEY, type Instance } from './instance.js';

let inst: Instance;
beforeEach(async () => { inst = await makeInstance(); });
afterEach(async () => { await inst.cleanup(); });

describe('authent.xml (config.md §5, sample §13.3)', () => {
  it('loads entries as Hosts with hostKey = ASCII of the lower-case hex', async () => {
    const { hosts, warnings } = await loadAuthentFile(await inst.sample('authent.xml'), SAMPLE_KEY);
    expect(warnings).toEqual([]);
    expect(hosts.map((h) => h.hostId)).toEqual(['svc1', 'svc1-ssl', 'partnerA', 'laptop-client']);
    expect(hosts[0]).toEqual({
      hostId: 'svc1', address: '127.0.0.1', port: 6666, isSsl: false, hostKey: Buffer.from('5a4b7c6a66065cbb622acefec8c3a302', 'ascii'),
      adminRole: true, isClient: false, isActive: true, isProxified: false, updatedInfo: 0,
    });
    expect(hosts[1]?.isSsl).toBe(true);
    const laptop = hosts[3];
    expect(laptop).toMatchObject({ address: '0.0.0.0', port: -1, isClient: true, isActive: true });
    expect(decryptPasswordHex(SAMPLE_KEY, laptop?.hostKey?.toString('ascii') ?? '')).toBe('laptop-pwd');
  });

  it('skips faulty entries with warnings; upper-case hex is normalised; no key means null', async () => {
    const f = await inst.write('a.xml', `<authent>
  <entry><hostid></hostid><address>h</address><port>1</port></entry>
  <entry><hostid>noaddr</hostid><port>1</port></entry>
  <entry><hostid>badport</hostid><address>h</address><port>x</port></entry>
  <entry><hostid>badkey</hostid><address>h</address><port>1</port><key>0c5197e36a3d31505460290486b3c15</key></entry>
  <entry><hostid>wrongkey</hostid><address>h</address><port>1</port><key>c5f4876737cf351a</key></entry>
  <entry><hostid>nofile</hostid><address>h</address><port>1</port><keyfile>${join(inst.dir, 'none.ggp')}</keyfile></entry>
  <entry><hostid>upper</hostid><address>h</address><port>1</port><key>5A4B7C6A66065CBB622ACEFEC8C3A302</key><isactive>false</isactive><isproxified>1</isproxified></entry>
  <entry><hostid>open</hostid><address>h</address><port>1</port><key/></entry>
</authent>`);
    const { hosts, warnings } = await loadAuthentFile(f, SAMPLE_KEY);
    expect(hosts.map((h) => h.hostId)).toEqual(['upper', 'open']);
    expect(hosts[0]?.hostKey?.toString('ascii')).toBe('5a4b7c6a66065cbb622acefec8c3a302');
    expect(hosts[0]).toMatchObject({ isActive: false, isProxified: true });
    expect(hosts[1]?.hostKey).toBeNull();
    expect(warnings).toHaveLength(6);
    expect(warnings[3]).toMatch(/a\.xml:5: entry badkey skipped: <key>: not an encrypted password/);
    expect(warnings[4]).toMatch(/wrongkey skipped: <key>: cannot decrypt/);
    expect(warnings[5]).toMatch(/nofile skipped: <keyfile> .*none\.ggp: password file file not found/);
    expect(warnings.join()).not.toContain('c5f4876737cf351a');
  });

  it('read -> write -> read gives the same hosts, in the export layout', async () => {
    const first = await loadAuthentFile(await inst.sample('authent.xml'), SAMPLE_KEY);
    const out = join(inst.dir, 'out-authent.xml');
    await writeAuthentFile(out, first.hosts);
    expect((await loadAuthentFile(out, SAMPLE_KEY)).hosts).toEqual(first.hosts);
    const text = await readFile(out, 'utf8');
    expect(text).toContain('<entry>\n    <hostid>svc1</hostid>\n    <key>5a4b7c6a66065cbb622acefec8c3a302</key>\n    <admin>true</admin>\n    <address>127.0.0.1</address>');
  });

  it('malformed file is a ConfigError with line', async () => {
    const f = join(inst.dir, 'bad.xml');
    await writeFile(f, '<authent>\n<entry>\n</authent>');
    const err = await loadAuthentFile(f, SAMPLE_KEY).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).line).toBe(3);
  });

  it('a file cut short names the elements left open, at its last line', async () => {
    const f = join(inst.dir, 'cut.xml');
    await writeFile(f, '<authent>\n<entry>\n<hostid>a</hostid>\n');
    const err = (await loadAuthentFile(f, SAMPLE_KEY).catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe(`${f}:4: malformed XML: the file ends with <authent>, <entry> not closed; expected the closing tag of each`);
  });
});
