// Issue 32 item 6 through the compiled commands: an out-of-range number in a configuration file or
// an option stops the command with the element's (option's) name, the range and the documented
// exit code; and loadauth of a large generated partner file loads every row (item "loadauth").
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encryptPasswordHex } from '../../src/config/index.js';
import { instanceForEachTest } from '../helpers/instance-each.js';
import { CRYPTO_KEY, hasNoStack, runCli, sqliteRows } from './cli-helpers.js';

const t = instanceForEachTest();

function editServerXml(edit: (xml: string) => string): void {
  const file = join(t.inst.confDir, 'server.xml');
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
}

describe('configuration values out of range stop the command (exit 1)', () => {
  it('server start: maxconnections 1e23 and blocksize 2147483647999 are refused with element and range', async () => {
    editServerXml((x) => x.replace('</config>', '<security><maxconnections>1e23</maxconnections></security></config>'));
    const a = await runCli('server', ['start'], t.env);
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(/<config\/security\/maxconnections>: 1e23 is not an integer; expected an integer from 1 to 100000 \(connections\)/);
    expect(hasNoStack(a.stderr)).toBe(true);
    editServerXml((x) => x.replace(/<security>.*<\/security>/, '').replace('<timeoutcon>10000</timeoutcon>', '<timeoutcon>10000</timeoutcon><blocksize>2147483647999</blocksize>'));
    const b = await runCli('server', ['start'], t.env);
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/server\.xml:\d+ <config\/limit\/blocksize>: 2147483647999 is out of range; expected an integer from 100 to 16777216 \(bytes\)/);
  });

  it('loadauth: a partner port of 70000 fails the load (exit 1) and loads nothing', async () => {
    expect((await runCli('server', ['initdb'], t.env)).code).toBe(0);
    const file = join(t.box.dir, 'bad-authent.xml');
    writeFileSync(file, `<authent>\n<entry><hostid>p1</hostid><address>h</address><port>6666</port></entry>\n<entry><hostid>p2</hostid><address>h</address><port>70000</port></entry></authent>`);
    const r = await runCli('server', ['loadauth', file], t.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad-authent\.xml:3 <authent\/entry\/port>: 70000 is out of range; expected an integer from -1 to 65535 \(TCP port\)/);
    expect(await sqliteRows(t.inst.sqliteFile, "select hostid from hosts where hostid like 'p%'")).toEqual([]);
  });
});

describe('numeric options out of range are refused with the option and its range', () => {
  it('initdb -minimalSeq: 1e24 and 2^63 refused (exit 1, database untouched); -5 is a signed 64-bit id and is said', async () => {
    for (const bad of ['1e24', '9223372036854775808', 'ten']) {
      const r = await runCli('server', ['initdb', '-minimalSeq', bad], t.env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`-minimalSeq: `);
      expect(r.stderr).toContain('expected an integer from -9223372036854775807 to 9223372036854775807 (transfer id)');
    }
    const ok = await runCli('server', ['initdb', '-minimalSeq', '-5'], t.env);
    expect(ok).toMatchObject({ code: 0, stdout: 'Initializing database... done\nTransfer ids restart at -5\n' });
  });

  it('client send -block and -delay, spool -limitParallel: refused before any transfer (their documented exit 2)', async () => {
    expect((await runCli('server', ['initdb', '-auth', join(t.inst.confDir, 'authent.xml')], t.env)).code).toBe(0);
    const block = await runCli('client', ['send', '-to', 'partnera', '-rule', 'send', '-file', '/etc/hostname', '-block', '2147483647999'], t.env);
    expect(block.code).toBe(2);
    expect(block.stderr).toContain('-block: 2147483647999 is out of range; expected an integer from 100 to 16777216 (bytes)');
    const delay = await runCli('client', ['send', '-to', 'partnera', '-rule', 'send', '-file', '/etc/hostname', '-delay', '+1e9'], t.env);
    expect(delay.code).toBe(2);
    expect(delay.stderr).toContain('-delay: 1e9 is not an integer; expected an integer from 0 to 315360000000 (ms from now)');
    const spool = await runCli('client', ['spool', '-to', 'partnera', '-rule', 'send', '-directory', t.box.dir, '-statusfile', join(t.box.dir, 's'), '-stopfile', join(t.box.dir, 'stop'), '-limitParallel', '-3'], t.env);
    expect(spool.code).toBe(2);
    expect(spool.stderr).toContain('-limitParallel: -3 is out of range; expected an integer from 0 to 100000 (transfers)');
  });

  it('svc-r66server init -port 70000: exit 1', async () => {
    const r = await runCli('server', ['-home', join(t.box.dir, 'newhome'), 'init', '-hostid', 'n1', '-port', '70000'], t.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('-port: 70000 is out of range; expected an integer from 1 to 65535 (TCP port)');
  });
});

describe('loadauth of a large partner file', () => {
  it('loads every entry of a generated 6,000-entry file in one command, the last of a repeated id winning', async () => {
    expect((await runCli('server', ['initdb'], t.env)).code).toBe(0);
    const entries: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const key = encryptPasswordHex(CRYPTO_KEY, `pw-${i}`);
      entries.push(`  <entry>\n    <hostid>bulk-${String(i).padStart(5, '0')}</hostid>\n    <address>10.1.${i >> 8}.${i & 255}</address>\n    <port>${i % 7 === 0 ? -1 : 6666}</port>\n    <isssl>${i % 2 === 0}</isssl>\n    <key>${key.toUpperCase()}</key>\n  </entry>\n`);
    }
    entries.push('  <entry><hostid>bulk-00003</hostid><address>again</address><port>7</port></entry>\n');
    const file = join(t.box.dir, 'big-authent.xml');
    writeFileSync(file, `<?xml version="1.0" encoding="UTF-8"?>\n<authent>\n<!-- generated -->\n${entries.join('')}</authent>\n`);
    const r = await runCli('server', ['loadauth', file], t.env);
    expect(r).toMatchObject({ code: 0, stdout: 'Loading authentication information... done\n' });
    const rows = await sqliteRows<{ hostid: string; address: string; port: number; isssl: number; isclient: number; hostkey: Buffer }>(t.inst.sqliteFile, "select hostid, address, port, isssl, isclient, hostkey from hosts where hostid like 'bulk-%' order by hostid");
    expect(rows).toHaveLength(6000);
    expect(rows[5998]).toMatchObject({ hostid: 'bulk-05998', address: '10.1.23.110', port: 6666, isssl: 1, isclient: 0 });
    // Stored as the lower-case hex of the file's (upper-case) key.
    expect(Buffer.from(rows[5998]!.hostkey).toString('ascii')).toBe(encryptPasswordHex(CRYPTO_KEY, 'pw-5998'));
    expect(rows[7]).toMatchObject({ port: -1, isclient: 1, address: '0.0.0.0' });
    expect(rows[3]).toMatchObject({ address: 'again', port: 7 });
    expect(rows[3]!.hostkey.length).toBe(0);
  });
});
