// The connection layer through the real commands: svc-r66client against a spawned svc-r66server
// (generated homes on loopback). A counting TCP relay in front of the server shows how many
// connections and channels the client really opened.
import { writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { loadClientConfig } from '../../src/config/index.js';
import { openClientNetwork } from '../../src/net/network.js';
import { FrameSplitter, NOCHANNEL, PacketType } from '../../src/protocol/index.js';
import { silentLogger } from '../../src/server/logger.js';
import { openStore, parseJdbcUrl } from '../../src/store/index.js';
import { PASSWORD_HEX } from '../cli/cli-helpers.js';
import { jsonResult, startPair, type Pair } from '../cli/client-harness.js';

/** Relays to `target`, counting TCP connections and the frames the client side sends. */
class CountingRelay {
  connections = 0;
  /** Client frames that open a channel (dstId NOCHANNEL, not KeepAlive), with their type code. */
  readonly opened: number[] = [];
  /** Client channels opened and not yet ended by the server's end of test (Valid 13). */
  private readonly open = new Set<number>();
  /** Most client channels open at once. */
  maxOpen = 0;
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;

  async start(target: number): Promise<number> {
    this.server = createServer((client) => {
      this.connections++;
      const upstream = connect({ host: '127.0.0.1', port: target });
      const splitter = new FrameSplitter();
      const back = new FrameSplitter();
      client.on('data', (chunk: Buffer) => {
        for (const f of splitter.push(chunk)) {
          if (f.dstId !== NOCHANNEL || f.code === PacketType.KEEPALIVE) continue;
          this.opened.push(f.code);
          this.open.add(f.srcId);
          this.maxOpen = Math.max(this.maxOpen, this.open.size);
        }
      });
      upstream.on('data', (chunk: Buffer) => {
        for (const f of back.push(chunk)) if (f.code === PacketType.VALID) this.open.delete(f.dstId);
      });
      client.pipe(upstream).pipe(client);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          this.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const entry = (hostId: string, port: number, extra = ''): string =>
  `<entry><hostid>${hostId}</hostid><address>127.0.0.1</address><port>${port}</port><key>${PASSWORD_HEX}</key>${extra}</entry>`;

describe('svc-r66client against svc-r66server', () => {
  let pair: Pair;
  const relay = new CountingRelay();

  beforeAll(async () => {
    pair = await startPair();
    const relayPort = await relay.start(pair.bPort);
    // hosta reaches hostb through the relay.
    const authent = join(pair.a.confDir, 'authent-relay.xml');
    writeFileSync(authent, `<authent>${entry('hosta', 6667, '<admin>true</admin>')}${entry('hostb', relayPort)}${entry('hostc', 1)}</authent>\n`);
    expect((await pair.client(['loadauth', authent])).code).toBe(0);
    for (let i = 1; i <= 5; i++) writeFileSync(join(pair.a.serverHome, 'out', `batch${i}.dat`), `file ${i}\n`.repeat(i * 100));
    writeFileSync(join(pair.b.serverHome, 'out', 'listed.txt'), 'listed\n');
  }, 90_000);
  afterAll(async () => {
    await relay.stop();
    await pair?.stop();
  });

  it('msend: five transfers on one TCP connection, one Authent, then commands without Authent (reuse)', async () => {
    const before = relay.connections;
    const openedBefore = relay.opened.length;
    const r = await pair.client(['msend', '-to', 'hostb', '-rule', 'send', '-file', 'batch?.dat', '-csv']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout.split('\n')[2]).toMatch(/;hostb;5;\d+$/);
    expect(relay.connections - before).toBe(1);
    // The first transfer goes on the channel its Authent opened; the four others open theirs
    // directly with their Request (the partner announced R66VERSION 3.6.2, §6.6).
    expect(relay.opened.slice(openedBefore)).toEqual([PacketType.AUTHENT, ...Array<number>(4).fill(PacketType.REQUEST)]);
  });

  it('one connection carries many channels at once (the client library with hosta\'s configuration)', async () => {
    const config = await loadClientConfig(join(pair.a.confDir, 'client.xml'));
    const db = config.db!;
    const store = await openStore(parseJdbcUrl(db.driver, db.server, db.user, db.password), { hostId: config.hostId });
    const { pool } = await openClientNetwork(config, { findHost: (id) => store.hosts.get(id), findRule: (id) => store.rules.get(id) }, { logger: silentLogger() });
    try {
      const before = relay.connections;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => sendMessage(pool, 'hostb', `m${i}`)));
      expect(answers.map((a) => a.answer)).toEqual(Array.from({ length: 20 }, (_, i) => `TestPacket: MSG:m${i}:101`));
      expect(relay.connections - before).toBe(1);
      expect(relay.maxOpen).toBeGreaterThan(1);
    } finally {
      await pool.close();
      await store.close();
    }
  });

  it('message: exit 0 and the echo; exit 2 for an unreachable or unknown partner (cli.md §5.1)', async () => {
    const ok = await pair.client(['message', '-to', 'hostb', '-msg', 'through the relay']);
    expect(ok).toMatchObject({ code: 0, stdout: 'Test Message       SUCCESS TestPacket: MSG:through the relay:101\n' });
    expect((await pair.client(['message', '-to', 'hostc', '-msg', 'x'])).code).toBe(2);
    expect((await pair.client(['message', '-to', 'nobody', '-msg', 'x'])).code).toBe(2);
    expect((await pair.client(['message', '-to', 'hostb'])).code).toBe(1);
  });

  it('getinfo: exist, list, MLSx and detail answered from the rule directory', async () => {
    const list = await pair.client(['getinfo', '-to', 'hostb', '-rule', 'send', '-file', 'list§', '-list']);
    expect(jsonResult(list.stdout)).toMatchObject({ nb: 1, file1: '/out/listed.txt' });
    const mlsx = await pair.client(['getinfo', '-to', 'hostb', '-rule', 'send', '-file', '*', '-mlsx']);
    expect(String(jsonResult(mlsx.stdout).file1)).toMatch(/^ Size=7;Modify=\d{14}\.\d{3};Type=file;Perm=adfwr; listed\.txt$/);
    const exist = await pair.client(['getinfo', '-to', 'hostb', '-rule', 'send', '-file', 'listed.txt', '-exist']);
    expect(jsonResult(exist.stdout)).toMatchObject({ nb: 1, file1: 'true' });
    const escape = await pair.client(['getinfo', '-to', 'hostb', '-rule', 'send', '-file', '../../server.xml', '-exist']);
    expect(escape.code).toBe(2);
    expect(jsonResult(escape.stdout).error).toMatch(/^FileNotAllowed/);
  });

  it('getinfo -id: the record of a transfer this host requested, from the partner (runner XML)', async () => {
    const sent = await pair.client(['send', '-to', 'hostb', '-rule', 'send', '-file', 'batch1.dat', '-info', 'for getinfo']);
    expect(sent.code, sent.stderr + sent.stdout).toBe(0);
    const id = String(jsonResult(sent.stdout).specialid);
    const r = await pair.client(['getinfo', '-to', 'hostb', '-id', id]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const res = jsonResult(r.stdout);
    expect(String(res.specialid)).toBe(id);
    expect(res).toMatchObject({ requester: 'hosta', requested: 'hostb' });
    expect(JSON.stringify(res)).toContain('for getinfo');
    // The other direction (-reqto: hostb requested it from us) does not exist: the partner answers f.
    const other = await pair.client(['getinfo', '-to', 'hostb', '-id', id, '-reqto']);
    expect(other.code).toBe(2);
    expect(jsonResult(other.stdout).error).toMatch(/^FileNotFound/);
  });
});
