// Live and right (issue 35): the monitoring and administration pages show a transfer within 2 s of
// its creation whatever wrote it, move it between sections as its state changes, and keep the header
// figures live. Another writer on hosta's database (a store opened by this test process: what a CLI
// client or a cluster member does) inserts and advances a row; the server's own scheduler runs a
// transfer created after the pages opened. Debian's chromium through playwright-core, real servers.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { formatIsoLocal } from '../../src/model/iso-date.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { openStore, parseJdbcUrl, type Store } from '../../src/store/index.js';
import { sandbox, spawnCli, type Sandbox } from '../cli/cli-helpers.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, rowOf, SEND_RULE, submitByRest, writePatternFile } from '../transfer/servers.js';
import { launchBrowser } from './browser.js';
import { startWebPair, type WebPair } from './web-nodes.js';
import { setStoredRow } from '../helpers/stored-row.js';
import { startWatcher, writeClientSide } from '../watch/watch-helpers.js';

const SHOTS = join(import.meta.dirname, '..', '..', 'docs', 'web-ui');
let box: Sandbox;
let web: WebPair | undefined;
let browser: Browser;
/** Another writer on hosta's database. */
let other: Store;
const monitor = (): string => web!.monitor;

beforeAll(async () => {
  box = sandbox();
  // 2 MB/s on the sender: the transfer runs for seconds, long enough to see the header move.
  web = await startWebPair(box, { rules: SEND_RULE, limit: '<globallimit>2097152</globallimit>', rest: true }, { rules: SEND_RULE });
  other = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${web.a.db}`), { hostId: 'hosta' });
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await other?.close();
  killNodes(web?.a, web?.b);
  box?.cleanup();
});

async function open(url: string, https = false): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: https, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

async function adminPage(path: string): Promise<Page> {
  const page = await open(`${web!.admin}/index.html`, true);
  await page.getByLabel('Host id').fill('admin');
  await page.getByLabel('Password').fill('password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/index\.html/);
  await page.goto(`${web!.admin}/${path}`);
  return page;
}

/** Runs browser-side source (a string: the test code is compiled without the DOM types) on `arg`. */
const inPage = <T>(page: Page, fn: string, arg: unknown = null): Promise<T> => page.evaluate(`(${fn})(${JSON.stringify(arg)})`) as Promise<T>;

/** The caption of the table holding the row, or null when the page does not show it. */
const sectionOf = (page: Page, key: string): Promise<string | null> =>
  inPage(page, "(k) => document.querySelector(`tr[data-key=\"${k}\"]`)?.closest('table')?.querySelector('caption')?.firstChild?.textContent?.trim() ?? null", key);

const cell = (page: Page, key: string, col: string): Promise<string | null> =>
  inPage(page, "([k, c]) => document.querySelector(`tr[data-key=\"${k}\"] [data-col=\"${c}\"]`)?.textContent ?? null", [key, col]);

/** Waits until `check` holds on the page; returns the milliseconds since `since`. */
async function within(ms: number, since: number, what: string, check: () => Promise<boolean>): Promise<number> {
  await waitFor(check, { what, timeoutMs: ms, intervalMs: 50 });
  return Date.now() - since;
}

async function live(page: Page): Promise<void> {
  await page.locator('.live-on').waitFor({ timeout: 10_000 });
}

describe('live pages from the database, in chromium', () => {
  it('a row written by another process appears within 2 s, moves To submit -> Running -> Done, its columns follow the row', async () => {
    const [all, active, done] = [await open(`${monitor()}/all`), await open(`${monitor()}/active`), await open(`${monitor()}/done`)];
    const listing = await adminPage('Listing.html');
    for (const p of [all, active, done, listing]) await live(p);
    const id = 9_000_000_001n;
    const key = `${id}.hosta.hostb`;
    const ref = { specialId: id, requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' };
    // Scheduled for tomorrow: listed by /all and the admin Listing, not yet by /active (start <= now).
    let t0 = Date.now();
    await other.runner.insert(transferRecord(id, { ...ref, idRule: 'send', updatedInfo: UpdatedInfo.TOSUBMIT, start: new Date(Date.now() + 86_400_000), stop: new Date() }));
    const appeared = await within(2000, t0, 'the new row on /all', async () => (await sectionOf(all, key)) !== null);
    await within(2000, t0, 'the new row in the admin Listing', async () => (await listing.locator(`tr[data-key="${key}"]`).count()) === 1);
    expect(await cell(all, key, 'info')).toBe('TOSUBMIT');

    // Another member runs it: /active lists it under Running, /all says RUNNING, the rank follows.
    t0 = Date.now();
    await setStoredRow(other.runner, ref, { updatedInfo: UpdatedInfo.RUNNING, globalStep: TaskStep.TRANSFERTASK, stepStatus: ErrorCode.Running, rank: 10, start: new Date() });
    const running = await within(2000, t0, 'the row under Running on /active', async () => (await sectionOf(active, key)) === 'Running');
    await within(2000, t0, 'RUNNING on /all', async () => (await cell(all, key, 'info')) === 'RUNNING');
    expect(await cell(active, key, 'info')).toBe('RUNNING');
    expect(await cell(active, key, 'step')).toBe('TRANSFERTASK');
    t0 = Date.now();
    await other.runner.updateRank(ref, 6144);
    await within(2000, t0, 'the stored rank on /active', async () => (await cell(active, key, 'rank')) === '6144');

    // Orders on a transfer another process runs: refused, said plainly; no second run, the row untouched.
    await listing.goto(`${web!.admin}/CancelRestart.html?startid=${id}&stopid=${id}`);
    for (const action of ['Restart', 'Stop']) {
      await listing.getByRole('button', { name: `${action} ${id}` }).first().click();
      expect(await listing.getByRole('status').first().textContent()).toContain(`${action} ${id}: not done: the transfer is RUNNING in another process`);
      const stored = await other.runner.get(ref);
      expect([stored?.updatedInfo, stored?.rank, stored?.infoStatus.char]).toEqual([UpdatedInfo.RUNNING, 6144, '-']);
    }
    await listing.goto(`${web!.admin}/Listing.html`);
    await live(listing);

    // It ends: gone from /active, listed by /done, DONE everywhere.
    t0 = Date.now();
    await setStoredRow(other.runner, ref, { updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk });
    const ended = await within(2000, t0, 'the row under Done on /done', async () => (await sectionOf(done, key)) !== null);
    await within(2000, t0, 'the row gone from /active', async () => (await sectionOf(active, key)) === null);
    await within(2000, t0, 'DONE in the Listing', async () => (await cell(listing, key, 'info')) === 'DONE');
    expect(await cell(all, key, 'statusName')).toBe('CompleteOk');
    console.log(`live rows from another writer: appeared ${appeared} ms, moved to Running ${running} ms, to Done ${ended} ms`);
    for (const p of [all, active, done, listing]) await p.context().close();
  }, 60_000);

  it('a transfer run by `svc-r66client send` on the same database: listed within 2 s, rank live, orders refused while it sends, DONE at its end', async () => {
    // hosta's client side on the server's database, 2 MB/s: 24 MB take 12 s, time enough for the orders below on a slow machine.
    writeFileSync(join(web!.a.confDir, 'client.xml'), `<?xml version="1.0" encoding="UTF-8"?>
<config><identity><hostid>hosta</hostid><cryptokey>${join(web!.a.confDir, 'cryptokey.des')}</cryptokey></identity><client/>
<directory><serverhome>${web!.a.home}</serverhome><in>in</in><out>out</out><arch>arch</arch><work>work</work><conf>conf</conf></directory>
<limit><timeoutcon>10000</timeoutcon><blocksize>65536</blocksize><globallimit>2097152</globallimit></limit>
<db><dbdriver>sqlite</dbdriver><dbserver>jdbc:sqlite:${web!.a.db}</dbserver><dbuser>svc</dbuser><dbpasswd>pw</dbpasswd></db></config>
`);
    await writePatternFile(join(web!.a.home, 'out', 'cli.bin'), 24 * 1024 * 1024);
    // Every page listing it (four event streams: the most one address may hold).
    const active = await open(`${monitor()}/active`);
    const listing = await adminPage('Listing.html');
    const cancel = await adminPage('CancelRestart.html');
    const exporting = await adminPage('Export.html');
    for (const p of [active, listing, cancel, exporting]) await live(p);
    const client = spawnCli('client', ['send', '-to', 'hostb', '-rule', 'send', '-file', 'cli.bin'], web!.a.env);
    try {
      const stored = await waitFor(async () => (await other.runner.list({ ownerReq: 'hosta' }, { orderBy: 'specialId', descending: true, limit: 20 })).find((r) => r.originalName.endsWith('cli.bin')),
        { what: 'the client\'s row in the database', timeoutMs: 20_000, intervalMs: 50 });
      const t0 = Date.now();
      const ref = { specialId: stored.specialId, requester: stored.requester, requested: stored.requested, ownerReq: 'hosta' };
      const key = `${ref.specialId}.${ref.requester}.${ref.requested}`;
      const appeared = await within(2000, t0, 'the client\'s transfer on /active', async () => (await sectionOf(active, key)) !== null);
      for (const [name, p] of [['Listing', listing], ['CancelRestart', cancel], ['Export', exporting]] as const) {
        await within(2000, t0, `the client's transfer on ${name}.html`, async () => (await p.locator(`tr[data-key="${key}"]`).count()) === 1);
      }
      await within(5000, t0, 'the client\'s transfer under Running', async () => (await sectionOf(active, key)) === 'Running');
      // The rank the page shows moves while the client sends, and is never ahead of the row.
      const ranks = new Set<string>();
      await waitFor(async () => {
        const shown = await cell(active, key, 'rank');
        const row = await other.runner.get(ref);
        if (shown !== null && row !== undefined) {
          expect(Number(shown)).toBeLessThanOrEqual(row.rank);
          ranks.add(shown);
        }
        return ranks.size >= 3;
      }, { what: 'three successive ranks on /active while the client sends', timeoutMs: 6000, intervalMs: 200 });
      // Stop and Restart from the row that appeared on CancelRestart: refused, said plainly; the client goes on.
      for (const action of ['Stop', 'Restart']) {
        await cancel.getByRole('button', { name: `${action} ${ref.specialId}` }).first().click();
        expect(await cancel.getByRole('status').first().textContent()).toMatch(new RegExp(`^${action} ${ref.specialId}: not done: the transfer is RUNNING in another process .*Stop it where it runs, or wait for its end\\.$`));
        expect((await other.runner.get(ref))?.updatedInfo).toBe(UpdatedInfo.RUNNING);
      }
      expect((await client.exited).code).toBe(0);
      const done = await other.runner.get(ref);
      expect([done?.updatedInfo, done?.infoStatus.char]).toEqual([UpdatedInfo.DONE, ErrorCode.CompleteOk.char]);
      expect(done!.start.getTime()).toBeLessThanOrEqual(done!.stop.getTime());
      // One run only: the scheduler of the server did not start it again.
      expect((await other.runner.list({ ownerReq: 'hosta' }, { limit: 1000 })).filter((r) => r.originalName.endsWith('cli.bin'))).toHaveLength(1);
      const t1 = Date.now();
      await within(2000, t1, 'the client\'s transfer gone from /active', async () => (await sectionOf(active, key)) === null);
      await listing.goto(`${web!.admin}/Listing.html`);
      expect(await cell(listing, key, 'info')).toBe('DONE');
      console.log(`live rows of svc-r66client send: appeared ${appeared} ms after its row, ${ranks.size} ranks seen while it sent`);
    } finally {
      client.child.kill('SIGKILL');
      for (const p of [active, listing, cancel, exporting]) await p.context().close();
    }
  }, 60_000);

  it('a transfer this server runs, created after the page opened, appears, moves to Done, and the header bandwidth moves', async () => {
    // 16 MB at 2 MB/s: 8 s, so the 5 s throughput samples of the home's picture see it too.
    await writePatternFile(join(web!.a.home, 'out', 'live.bin'), 16 * 1024 * 1024);
    const active = await open(`${monitor()}/active`);
    const done = await open(`${monitor()}/done`);
    const all = await open(`${monitor()}/all`);
    const listing = await adminPage('Listing.html');
    for (const p of [active, done, all, listing]) await live(p);
    const creator = await adminPage('CreateTransfer.html');
    await creator.getByLabel('Host', { exact: true }).fill('hostb');
    await creator.getByLabel('Rule').fill('send');
    await creator.getByLabel('File', { exact: true }).fill('live.bin');
    const t0 = Date.now();
    await creator.getByRole('button', { name: 'Create transfer' }).click();
    const id = BigInt(/Submit: (\d+)/.exec((await creator.getByRole('status').first().textContent()) ?? '')![1]!);
    const key = `${id}.hosta.hostb`;
    const appeared = await within(2000, t0, 'the new transfer on /active', async () => (await sectionOf(active, key)) !== null);
    await within(10_000, t0, 'the transfer under Running', async () => (await sectionOf(active, key)) === 'Running');
    const bandwidth = active.locator('[data-fact="bandwidth"]');
    await waitFor(async () => !/OUT:0Mbits/.test((await bandwidth.textContent()) ?? ''), { what: 'the header bandwidth OUT moving', timeoutMs: 10_000 });
    expect(await active.locator('[data-fact="channels"]').textContent()).not.toBe('0');
    // The administration header too: Local (running transfers, run limit) and the MB/s figures.
    await waitFor(async () => /^[1-9]/.test((await listing.locator('[data-fact="local"]').textContent()) ?? ''), { what: 'the admin header Local moving', timeoutMs: 5000 });
    expect(await listing.locator('[data-fact="bandwidthMB"]').textContent()).not.toMatch(/OUT:0\.00MB/);
    // The open R66 connection to hostb (the pool keeps it after the transfer): counted apart from channels.
    expect(Number(await active.locator('[data-fact="connections"]').textContent())).toBeGreaterThanOrEqual(1);
    await waitFor(async () => Number((await rowOf(web!.a, id))?.updatedinfo) === UpdatedInfo.DONE, { what: 'the transfer done', timeoutMs: 30_000 });
    const t1 = Date.now();
    await within(2000, t1, 'the transfer gone from /active', async () => (await sectionOf(active, key)) === null);
    await within(2000, t1, 'the transfer on /done', async () => (await sectionOf(done, key)) !== null);
    // The row /all showed since before its end says what the database says, without a reload.
    const row = await other.runner.get({ specialId: id, requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' });
    await within(2000, t1, 'DONE on /all', async () => (await cell(all, key, 'info')) === 'DONE');
    await within(2000, t1, 'STOPTRANS on /all', async () => (await cell(all, key, 'stop')) === formatIsoLocal(row!.stop));
    expect([await cell(all, key, 'step'), await cell(all, key, 'statusName'), await cell(all, key, 'rank')])
      .toEqual(['ALLDONETASK', row!.stepStatus.name, String(row!.rank)]);
    console.log(`live rows of this server: appeared ${appeared} ms after the Create click`);
    for (const p of [active, done, all, listing, creator]) await p.context().close();
  }, 60_000);

  it('a transfer submitted through REST appears within 2 s on the pages open, and ends DONE on them', async () => {
    await writePatternFile(join(web!.a.home, 'out', 'rest.bin'), 1024 * 1024);
    const active = await open(`${monitor()}/active`);
    const all = await open(`${monitor()}/all`);
    for (const p of [active, all]) await live(p);
    const id = await submitByRest(web!.a, 'rest.bin', 'hostb');
    const t0 = Date.now();
    const key = `${id}.hosta.hostb`;
    const appeared = await within(2000, t0, 'the REST transfer on /all', async () => (await sectionOf(all, key)) !== null);
    await waitFor(async () => Number((await rowOf(web!.a, id))?.updatedinfo) === UpdatedInfo.DONE, { what: 'the REST transfer done', timeoutMs: 30_000 });
    const t1 = Date.now();
    await within(2000, t1, 'DONE on /all', async () => (await cell(all, key, 'info')) === 'DONE');
    await within(2000, t1, 'gone from /active', async () => (await sectionOf(active, key)) === null);
    console.log(`live rows of a REST submission: appeared ${appeared} ms after the REST answer`);
    for (const p of [active, all]) await p.context().close();
  }, 60_000);

  it('a transfer a FileWatcher (svc-r66client spool on the same database) starts appears within 2 s of its row, and ends DONE', async () => {
    const w = writeClientSide(box, web!.a);
    const watcher = await startWatcher(w);
    const all = await open(`${monitor()}/all`);
    try {
      await live(all);
      await writePatternFile(join(w.spool, 'spooled.bin'), 256 * 1024);
      const stored = await waitFor(async () => (await other.runner.list({ ownerReq: 'hosta' }, { orderBy: 'specialId', descending: true, limit: 20 })).find((r) => r.originalName.endsWith('spooled.bin')),
        { what: 'the watcher\'s row in the database', timeoutMs: 20_000, intervalMs: 50 });
      const t0 = Date.now();
      const key = `${stored.specialId}.${stored.requester}.${stored.requested}`;
      const appeared = await within(2000, t0, 'the watcher\'s transfer on /all', async () => (await sectionOf(all, key)) !== null);
      const ref = { specialId: stored.specialId, requester: stored.requester, requested: stored.requested, ownerReq: 'hosta' };
      await waitFor(async () => (await other.runner.get(ref))?.updatedInfo === UpdatedInfo.DONE, { what: 'the watcher\'s transfer done', timeoutMs: 30_000 });
      await within(2000, Date.now(), 'DONE on /all', async () => (await cell(all, key, 'info')) === 'DONE');
      console.log(`live rows of a FileWatcher: appeared ${appeared} ms after its row`);
    } finally {
      watcher.child.kill('SIGTERM');
      await watcher.exited;
      await all.context().close();
    }
  }, 60_000);

  it('the home draws throughput, transfers per minute by status and errors by partner and rule from the server\'s figures, and redraws them', async () => {
    const home = await open(`${monitor()}/`);
    const chart = (label: string) => home.locator(`svg[aria-label^="${label}"]`);
    const perMinute = async (): Promise<Record<string, number>> => {
      const f = chart('Transfers per minute');
      return Object.fromEntries(await Promise.all(['done', 'error', 'running', 'other'].map(async (s) => [s, Number(await f.getAttribute(`data-${s}`))])));
    };
    const before = await perMinute();
    // The transfer of the previous test was sampled while it sent at 2 MB/s.
    expect(Number(await chart('Throughput').getAttribute('data-peak-out'))).toBeGreaterThan(1_000_000);
    expect(await chart('Errors by partner').getAttribute('data-bars')).toBe('');
    // Another writer records two transfers in error and one done: the open page redraws within 10 s (+ the 10 s figure cache).
    const now = new Date();
    const row = (id: bigint, requested: string, idRule: string, updatedInfo: UpdatedInfo) => transferRecord(id, { requester: 'hosta', requested, ownerReq: 'hosta', idRule, updatedInfo, start: now, stop: now });
    const errors = await open(`${monitor()}/error`);
    await live(errors);
    const t0 = Date.now();
    await other.runner.insertMany([row(9_000_000_010n, 'hostb', 'send', UpdatedInfo.INERROR), row(9_000_000_011n, 'hostc', 'recv', UpdatedInfo.INERROR), row(9_000_000_012n, 'hostb', 'send', UpdatedInfo.DONE)]);
    // The error view lists them within 2 s, under In error.
    for (const key of ['9000000010.hosta.hostb', '9000000011.hosta.hostc']) {
      await within(2000, t0, `${key} under In error on /error`, async () => (await sectionOf(errors, key)) === 'In error');
    }
    await errors.context().close();
    await waitFor(async () => (await perMinute()).error === before.error! + 2, { what: 'the error bars redrawn', timeoutMs: 25_000 });
    expect((await perMinute()).done).toBeGreaterThanOrEqual(before.done! + 1);
    expect(await chart('Errors by partner').getAttribute('data-bars')).toBe('hostb=1,hostc=1');
    expect(await chart('Errors by rule').getAttribute('data-bars')).toBe('recv=1,send=1');
    await home.screenshot({ path: join(SHOTS, 'monitoring-home.png'), fullPage: true });
    await home.context().close();
  }, 60_000);
});

describe('a page refused its event stream, in chromium', () => {
  it('every slot of its address taken (maxeventstreamsperclient 4): it connects again once one frees, and is live', async () => {
    const first: Page[] = [];
    for (let i = 0; i < 4; i++) first.push(await open(`${monitor()}/done`));
    for (const p of first) await live(p);
    // The fifth page of this address is refused (429), as a page is whose previous page's stream is not closed yet.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // What the page's stream and reloads did, with times, for the failure message below.
    await context.addInitScript(`(() => {
      const log = (window.__trace = []);
      const t0 = Date.now();
      const note = (what) => log.push((Date.now() - t0) + ' ' + what);
      const ES = window.EventSource;
      window.EventSource = function (url) {
        const es = new ES(url);
        note('connect');
        es.addEventListener('open', () => note('open'));
        es.addEventListener('error', () => note('error ' + es.readyState));
        es.addEventListener('transfers', (e) => note('transfers ' + e.data.slice(0, 120)));
        return es;
      };
      window.EventSource.CLOSED = ES.CLOSED;
      const f = window.fetch;
      window.fetch = (...a) => { note('fetch'); return f(...a).then((r) => { note('fetched ' + r.status); return r; }, (e) => { note('fetch failed ' + e); throw e; }); };
    })()`);
    const fifth = await context.newPage();
    const refused = fifth.waitForResponse((r) => r.url().endsWith('/events') && r.status() === 429);
    await fifth.goto(`${monitor()}/all`);
    await refused;
    await first[0]!.context().close();
    const t0 = Date.now();
    await live(fifth);
    const back = Date.now() - t0;
    // Live for real: a row written now appears on it, which only the event stream can bring (the
    // page has no timer of its own). Within 15 s, not the 2 s the first test judges: here four other
    // pages of the browser redraw too, and in the full suite beside the other tests on two cores
    // this page took longer than 2 s, then longer than 5 s (CI, 2026-12-03, twice); what is judged
    // is that it is live again, and a page that stayed refused never shows the row.
    const id = 9_000_000_020n;
    const t1 = Date.now();
    await other.runner.insert(transferRecord(id, { requester: 'hosta', requested: 'hostb', ownerReq: 'hosta', idRule: 'send', updatedInfo: UpdatedInfo.TOSUBMIT, start: new Date(Date.now() + 86_400_000), stop: new Date() }));
    const key = `${id}.hosta.hostb`;
    const shown = await within(15_000, t1, 'the new row on the page that was refused', async () => (await sectionOf(fifth, key)) !== null).catch(async (err: Error) => {
      // What a failure needs to be understood: is the page still live, and does the server's page hold the row?
      const state = await inPage<{ live: boolean; status: number; served: boolean; trace: string[] }>(fifth, `async (k) => {
        const trace = [...window.__trace];
        const r = await fetch(location.href, { signal: AbortSignal.timeout(5000) });
        return { live: document.querySelector('.live-on') !== null, status: r.status, served: (await r.text()).includes(k), trace };
      }`, key).catch((e: unknown) => String(e));
      throw new Error(`${err.message} (written at ${t1 - t0} ms after the slot freed); page state: ${JSON.stringify(state)}`);
    });
    console.log(`a refused page was live ${back} ms after a slot freed, and showed a new row ${shown} ms after it was written`);
    for (const p of [...first.slice(1), fifth]) await p.context().close();
  }, 60_000);
});

/** How far the page itself scrolls sideways (0: it fits), and the widest offenders when it does not. */
async function overflow(page: Page): Promise<{ px: number; culprits: string[] }> {
  return inPage(page, `() => {
    const root = document.documentElement;
    const px = root.scrollWidth - root.clientWidth;
    const culprits = px <= 0 ? [] : [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > root.clientWidth + 1 && !e.closest('.scroll'))
      .slice(0, 5).map((e) => e.tagName.toLowerCase() + '.' + e.className);
    return { px, culprits };
  }`);
}

describe('every page fits the screen, in chromium', () => {
  const MONITORING = ['/', '/active', '/error', '/done', '/all', '/status', '/spooled', '/spooleddetail?DETAIL=1'];
  const ADMIN = ['Logon.html', 'index.html', 'Listing.html', 'CancelRestart.html', 'CreateTransfer.html', 'Export.html', 'Hosts.html', 'Rules.html', 'System.html', 'Spooled.html'];

  it('no page scrolls sideways at 1280 px or 390 px; tables scroll inside themselves; the Actions column is reachable', async () => {
    // A row with a long file name and information, so the tables are wider than a phone.
    const ref = { specialId: 9_000_000_002n, requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' };
    await other.runner.insert(transferRecord(ref.specialId, { ...ref, idRule: 'send', updatedInfo: UpdatedInfo.TOSUBMIT, start: new Date(Date.now() + 86_400_000), filename: `/out/${'a-rather-long-directory-name/'.repeat(4)}file.bin` }));
    const adm = await adminPage('index.html');
    const mon = await open(`${monitor()}/`);
    for (const width of [1280, 390]) {
      for (const [page, base, paths] of [[mon, monitor(), MONITORING], [adm, web!.admin, ADMIN]] as const) {
        await page.setViewportSize({ width, height: 800 });
        for (const path of paths) {
          await page.goto(`${base}/${path.replace(/^\//, '')}`);
          expect(await overflow(page), `${path} at ${width} px`).toEqual({ px: 0, culprits: [] });
        }
      }
      // CancelRestart: the row's Stop button is on screen once scrolled to, inside the table's own scroller.
      await adm.goto(`${web!.admin}/CancelRestart.html`);
      const stop = adm.getByRole('button', { name: `Stop ${ref.specialId}` });
      expect(await adm.locator(`.scroll button[aria-label="Stop ${ref.specialId}"]`).count()).toBe(1);
      await stop.scrollIntoViewIfNeeded();
      const box = await stop.boundingBox();
      expect(box, `the Stop button at ${width} px`).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, `the Stop button's right edge at ${width} px`).toBeLessThanOrEqual(width);
      if (width === 1280) {
        // Wide screens: the Actions column is pinned to the table's right edge, visible without scrolling sideways.
        await inPage(adm, "() => { window.scrollTo(0, 0); for (const s of document.querySelectorAll('.scroll')) s.scrollLeft = 0; }");
        const pinned = await stop.boundingBox();
        expect(pinned!.x + pinned!.width).toBeLessThanOrEqual(width);
      }
    }
    await adm.context().close();
    await mon.context().close();
  }, 90_000);
});
