// Issue 32 item 2 against a real server process (`svc-r66server start`, bench/svc homes, defaults of
// server.xml <security>): idle floods on REST, the web monitoring port and R66, from loopback
// source addresses 127.0.x.y. Prints what another address gets during each flood and the server's
// open descriptors. Not part of `npm test`.
//
//   npm run --silent build && npx tsc -p tsconfig.bench.json && node bench/probes/listener-flood.mjs
//
// 1. REST: 1,100 idle sockets from one address (the issue: REST answered nobody for 60-70 s);
// 2. web monitoring: 5,000 idle sockets from 200 addresses (the issue: 20,600 used every descriptor);
// 3. R66: 200 addresses x 5 idle sockets, each reopened as soon as the server closes it (the issue:
//    0 of 8 partner messages got through); 8 `svc-r66client message` runs during it.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, writeHomes } from '../../dist/bench/svc/homes.js';
import { runCli, spawnCli, startServer } from '../../dist/bench/svc/hosts.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fds = (pid) => readdirSync(`/proc/${pid}/fd`).length;
/** The kernel's count of connections dropped because an accept queue was full (all listeners). */
function overflowsFromNetstat() {
  const [names, values] = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((l) => l.startsWith('TcpExt:')).map((l) => l.split(/\s+/));
  return Number(values[names.indexOf('ListenOverflows')]);
}

function addresses(count, first) {
  return Array.from({ length: count }, (_, i) => `127.0.${Math.floor((first + i) / 250)}.${((first + i) % 250) + 1}`);
}

/** Idle sockets; `reconnect`: reopened as soon as closed. */
function flood(port, from, perAddress, reconnect) {
  const state = { open: new Set(), opened: 0, stopped: false };
  const open = (address) => {
    if (state.stopped) return;
    const s = connect({ host: '127.0.0.1', port, localAddress: address });
    state.opened++;
    s.on('error', () => undefined);
    state.open.add(s);
    s.once('close', () => {
      state.open.delete(s);
      if (reconnect && !state.stopped) setImmediate(() => open(address));
    });
  };
  for (const a of from) for (let i = 0; i < perAddress; i++) open(a);
  return {
    state,
    stop() {
      state.stopped = true;
      for (const s of state.open) s.destroy();
    },
  };
}

/** GET from 127.0.0.1 on a fresh connection: status and milliseconds (status 0: no answer within 10 s). */
function timedGet(port, path) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: Date.now() - t0 }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, ms: Date.now() - t0 }));
    req.end();
  });
}

async function gets(port, path, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await timedGet(port, path));
  const answered = out.filter((r) => r.status > 0 && r.status < 500).length;
  return `${answered}/${n} answered, slowest ${Math.max(...out.map((r) => r.ms))} ms`;
}

const root = mkdtempSync(join(tmpdir(), 'svc-listener-flood-'));
const { a, b, run } = await writeHomes(root, { runLimit: 10, digest: 5 });
const restPort = await freePort();
const webPort = await freePort();
const xml = join(b.confDir, 'server.xml');
writeFileSync(xml, readFileSync(xml, 'utf8')
  .replace('<serverhttpport>0</serverhttpport>', `<serverhttpport>${webPort}</serverhttpport>`)
  .replace('</config>', `<rest><restport>${restPort}</restport><restaddress>127.0.0.1</restaddress><restauthenticated>False</restauthenticated><restsignature>False</restsignature><restmethod><restname>ALL</restname><restcrud>CRUD</restcrud></restmethod></rest>\n</config>`));
for (const c of run) await runCli(c.side, c.home, c.args);
const server = await startServer(b);
try {
  await sleep(2000);
  console.log(`server pid ${server.pid}: ${fds(server.pid)} descriptors open at rest`);

  let f = flood(restPort, ['127.0.0.2'], 1100, false);
  await sleep(1500);
  console.log(`REST, 1,100 idle sockets from 127.0.0.2: ${f.state.open.size} still open after 1.5 s; another address: ${await gets(restPort, '/v2/openapi.json', 5)}`);
  await sleep(11_000);
  console.log(`REST: ${f.state.open.size} of them open after 12.5 s (httpidletimeout 10 s)`);
  f.stop();

  f = flood(webPort, addresses(200, 10), 25, false);
  await sleep(2000);
  console.log(`web monitoring, 5,000 idle sockets from 200 addresses: ${f.state.open.size} still open after 2 s, server descriptors ${fds(server.pid)}; another address: ${await gets(webPort, '/', 5)}`);
  f.stop();

  await sleep(500);
  const t0 = Date.now();
  const alone = spawnCli('client', a, ['message', '-to', 'hostb', '-msg', 'no flood'], 'message');
  console.log(`R66 without a flood: svc-r66client message exit ${(await alone.exited).code} in ${Date.now() - t0} ms (process start included)`);
  const overflowsBefore = overflowsFromNetstat();
  f = flood(b.ports.port, addresses(200, 300), 5, true);
  await sleep(3000);
  const results = [];
  for (let i = 0; i < 8; i++) {
    const t0 = Date.now();
    const child = spawnCli('client', a, ['message', '-to', 'hostb', '-msg', `during the flood ${i}`], 'message');
    const { code } = await child.exited;
    results.push({ code, ms: Date.now() - t0 });
  }
  const ok = results.filter((r) => r.code === 0).length;
  console.log(`R66, 200 addresses x 5 reconnecting idle sockets (${f.state.opened} opened so far, ${f.state.open.size} open now, server descriptors ${fds(server.pid)}): ${ok}/8 svc-r66client message answered in ${results.map((r) => r.ms).join(', ')} ms (process start included); accept-queue overflows during it: ${overflowsFromNetstat() - overflowsBefore}`);
  f.stop();
  process.exitCode = ok === 8 ? 0 : 1;
} finally {
  await server.stop('SIGTERM');
  rmSync(root, { recursive: true, force: true });
}
