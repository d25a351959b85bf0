// The web UI in a real browser (Debian's chromium through playwright-core) against two real
// svc-r66server processes with a real transfer: the monitoring pages render and the running
// transfer's row updates in place from the live events; the administration area logs in, stops and
// restarts that transfer (the file arrives byte-identical), creates a partner, enforces roles, and
// refuses a bad session and a forged form. Screenshots go to docs/web-ui/ (shown in docs/web-ui.md).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { sandbox, sqliteRows, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, receivedFile, rowOf, SEND_RULE, sha256File, writePatternFile, type Node } from '../transfer/servers.js';
import { launchBrowser } from './browser.js';
import { startWebPair } from './web-nodes.js';

const SHOTS = join(import.meta.dirname, '..', '..', 'docs', 'web-ui');
const SIZE = 12 * 1024 * 1024;

let box: Sandbox;
let a: Node;
let b: Node;
let monitor: string;
let admin: string;
let browser: Browser;

beforeAll(async () => {
  box = sandbox();
  // 2 MB/s on the sender: the transfer runs long enough to watch it and stop it.
  ({ a, b, monitor, admin } = await startWebPair(box, {
    rules: SEND_RULE, limit: '<globallimit>2097152</globallimit>', partners: [{ id: 'viewer', port: -1 }, { id: 'operator', port: -1 }],
    roles: '<role><roleid>viewer</roleid><roleset>READONLY</roleset></role><role><roleid>operator</roleid><roleset>READONLY TRANSFER</roleset></role>',
  }, { rules: SEND_RULE }));
  expect(a.proc!.stdout()).toContain(`web monitoring: ${monitor}/`);
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  killNodes(a, b);
  box?.cleanup();
});

async function newPage(opts: { https?: boolean; width?: number } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: opts.https ?? false, viewport: { width: opts.width ?? 1280, height: 800 } });
  const page = await context.newPage();
  // Bulk and delete buttons ask for confirmation: the tests confirm.
  page.on('dialog', (d) => void d.accept());
  return { context, page };
}

async function login(page: Page, user: string): Promise<void> {
  await page.goto(`${admin}/index.html`);
  await page.getByLabel('Host id').fill(user);
  await page.getByLabel('Password').fill('password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/index\.html/);
}

const rankOf = async (page: Page, key: string): Promise<number> => Number(await page.locator(`tr[data-key="${key}"] [data-col="rank"]`).textContent());

describe('web UI in chromium against real servers', () => {
  let id: bigint;
  let key: string;

  it('monitoring: home renders; a transfer created in the admin area runs and its row updates live', async () => {
    const expected = await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
    const { context, page } = await newPage();
    await page.goto(`${monitor}/`);
    expect(await page.title()).toBe('svc-r66 Monitoring: hosta');
    // monitoring-home.png, with its pictures, is taken by live-db.browser.test.ts.

    const { context: adminCtx, page: adm } = await newPage({ https: true });
    await login(adm, 'admin');
    await adm.screenshot({ path: join(SHOTS, 'admin-start.png'), fullPage: true });
    await adm.goto(`${admin}/CreateTransfer.html`);
    await adm.getByLabel('Host', { exact: true }).fill('hostb');
    await adm.getByLabel('Rule').fill('send');
    await adm.getByLabel('File', { exact: true }).fill('big.bin');
    await adm.getByRole('button', { name: 'Create transfer' }).click();
    const created = await adm.getByRole('status').first().textContent();
    id = BigInt(/Submit: (\d+)/.exec(created ?? '')![1]!);
    key = `${id}.hosta.hostb`;
    await adm.screenshot({ path: join(SHOTS, 'admin-create.png'), fullPage: true });

    // The active list: the row is there once the scheduler started it, then its rank moves without reload.
    await waitFor(async () => Number((await rowOf(a, id))?.updatedinfo) === UpdatedInfo.RUNNING, { what: 'the transfer running', timeoutMs: 20_000 });
    await page.goto(`${monitor}/active`);
    const row = page.locator(`tr[data-key="${key}"]`);
    await row.waitFor();
    await page.locator('.live-on').waitFor({ timeout: 10_000 });
    const first = await rankOf(page, key);
    let navigations = 0;
    page.on('framenavigated', () => navigations++);
    await waitFor(async () => (await rankOf(page, key)) > first, { what: 'the rank cell updated by the live events', timeoutMs: 15_000 });
    expect(navigations).toBe(0);
    expect(await row.locator('[data-col="rate"]').textContent()).toMatch(/B\/s/);
    await page.screenshot({ path: join(SHOTS, 'monitoring-active-live.png'), fullPage: true });
    // The same page, narrow (a phone).
    await page.setViewportSize({ width: 375, height: 740 });
    await page.screenshot({ path: join(SHOTS, 'monitoring-narrow.png'), fullPage: true });
    await context.close();

    // Stop it from CancelRestart, then restart: it resumes and the file arrives intact.
    await adm.goto(`${admin}/CancelRestart.html?startid=${id}&stopid=${id}`);
    await adm.getByRole('button', { name: `Stop ${id}` }).click();
    await adm.getByRole('status').first().waitFor();
    expect(await adm.getByRole('status').first().textContent()).toContain(`Stop ${id}`);
    await waitFor(async () => (await rowOf(a, id))?.infostatus === 'H', { what: 'the row stopped' });
    await adm.screenshot({ path: join(SHOTS, 'admin-cancel-restart.png'), fullPage: true });
    await adm.getByRole('button', { name: `Restart ${id}` }).click();
    await waitFor(async () => {
      const [ra, rb] = [await rowOf(a, id), await rowOf(b, id)];
      return Number(ra?.updatedinfo) === UpdatedInfo.DONE && Number(rb?.updatedinfo) === UpdatedInfo.DONE;
    }, { what: 'the restarted transfer done on both sides', timeoutMs: 60_000 });
    expect(await sha256File(receivedFile(b, 'big.bin'))).toBe(expected);
    await adminCtx.close();
  }, 120_000);

  it('monitoring: lists, status documents and French; keyboard: the skip link moves focus to the content', async () => {
    const { context, page } = await newPage();
    await page.goto(`${monitor}/done`);
    await page.locator(`tr[data-key="${key}"]`).waitFor();
    await page.screenshot({ path: join(SHOTS, 'monitoring-done.png'), fullPage: true });
    const status = await page.goto(`${monitor}/status`);
    expect(status!.status()).toBe(200);
    const json = JSON.parse(await (await page.goto(`${monitor}/statusjson?DETAIL=1`))!.text()) as { STATUS: { OVERALL: { Done: number } } };
    expect(json.STATUS.OVERALL.Done).toBeGreaterThanOrEqual(1);
    await page.goto(`${monitor}/`);
    await page.getByRole('link', { name: 'FR' }).click();
    expect(await page.title()).toBe('svc-r66 Supervision: hosta');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Aller au contenu');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.id')).toBe('main');
    await context.close();
  }, 60_000);

  it('administration: hosts and system pages act; roles are enforced; a bad session and a forged form are refused', async () => {
    const { context, page } = await newPage({ https: true });
    await page.goto(`${admin}/Hosts.html`);
    expect(await page.getByLabel('Password').count()).toBe(1);
    await page.getByLabel('Host id').fill('admin');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Log in' }).click();
    expect(await page.getByRole('status').textContent()).toContain('Bad login');
    await page.screenshot({ path: join(SHOTS, 'admin-logon.png'), fullPage: true });
    await login(page, 'admin');
    await page.goto(`${admin}/Hosts.html`);
    const form = page.locator('form[method="post"].panel');
    await form.getByLabel('Host', { exact: true }).fill('hostweb');
    await form.getByLabel('Address').fill('10.9.8.7');
    await form.getByLabel('Port').fill('6677');
    await form.getByLabel('Password').fill('webpass');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').first().waitFor();
    expect(await sqliteRows(a.db, "select address, port from hosts where hostid = 'hostweb'")).toEqual([{ address: '10.9.8.7', port: 6677 }]);
    await page.screenshot({ path: join(SHOTS, 'admin-hosts.png'), fullPage: true });
    await page.goto(`${admin}/Listing.html`);
    await page.screenshot({ path: join(SHOTS, 'admin-listing.png'), fullPage: true });
    await page.goto(`${admin}/System.html`);
    await page.screenshot({ path: join(SHOTS, 'admin-system.png'), fullPage: true });

    // A forged form: the session cookie rides along, the CSRF token does not match.
    await page.evaluate(`(() => {
      const f = document.querySelector('form[method="post"]');
      f.querySelector('input[name="csrf"]').value = 'forged';
      f.submit();
    })()`);
    await page.waitForLoadState();
    expect(await page.getByRole('status').textContent()).toContain('forged');

    // A bad session cookie is no session: the logon form.
    await context.clearCookies();
    await context.addCookies([{ name: 'R66SESSIONhosta', value: 'hosta0123456789abcdef0123456789abcdef', url: admin }]);
    await page.goto(`${admin}/System.html`);
    expect(await page.getByLabel('Password').count()).toBe(1);
    await context.close();

    // READONLY: lists, but the transfer orders page is not allowed (checked below, after the other admin pages).
    const viewer = await newPage({ https: true });
    await login(viewer.page, 'viewer');
    const refused = await viewer.page.goto(`${admin}/CancelRestart.html`);
    expect(refused!.status()).toBe(403);
    expect(await viewer.page.getByRole('heading', { level: 2 }).textContent()).toContain('not allowed');
    expect(await viewer.page.getByRole('link', { name: 'Hosts' }).count()).toBe(0);
    await viewer.context.close();
  }, 60_000);

  it('administration: Update a scheduled transfer from CancelRestart (it runs with the new file); Close connections ends the R66 connection to hostb', async () => {
    writeFileSync(join(a.home, 'out', 'first.txt'), 'the first file\n');
    writeFileSync(join(a.home, 'out', 'second.txt'), 'the second file, sent instead\n');
    const { context, page } = await newPage({ https: true });
    await login(page, 'admin');
    // Scheduled far ahead: it waits in TOSUBMIT.
    await page.goto(`${admin}/CreateTransfer.html`);
    await page.getByLabel('Host', { exact: true }).fill('hostb');
    await page.getByLabel('Rule').fill('send');
    await page.getByLabel('File', { exact: true }).fill('first.txt');
    await page.getByLabel('Start at').fill('2099/01/01 00:00');
    await page.getByRole('button', { name: 'Create transfer' }).click();
    const later = BigInt(/Submit: (\d+)/.exec((await page.getByRole('status').first().textContent()) ?? '')![1]!);
    await page.goto(`${admin}/CancelRestart.html?startid=${later}&stopid=${later}`);
    await page.getByRole('link', { name: `Update transfer ${later}` }).click();
    await page.waitForURL(/CreateTransfer\.html\?SPECIALID=/);
    expect(await page.getByLabel('File', { exact: true }).inputValue()).toBe('first.txt');
    expect(await page.getByLabel('Host', { exact: true }).getAttribute('readonly')).not.toBeNull();
    await page.getByLabel('File', { exact: true }).fill('second.txt');
    await page.getByLabel('Start at').fill('2020/01/01 00:00');
    await page.getByRole('button', { name: `Update transfer ${later}` }).click();
    expect(await page.getByRole('status').first().textContent()).toContain(`Update ${later}: done`);
    await page.screenshot({ path: join(SHOTS, 'admin-update.png'), fullPage: true });
    // Due now: the scheduler runs it, with the new file, under the same id.
    await waitFor(async () => Number((await rowOf(b, later))?.updatedinfo) === UpdatedInfo.DONE, { what: 'the updated transfer done at hostb', timeoutMs: 30_000 });
    expect(readFileSync(receivedFile(b, 'second.txt'), 'utf8')).toBe('the second file, sent instead\n');

    // Close connections: a connection to hostb is open (the test message opens one), then none is.
    const toB = (): number => execFileSync('ss', ['-Htn', 'state', 'established', `( dport = :${b.port} )`], { encoding: 'utf8' }).split('\n').filter((l) => l.trim() !== '').length;
    await page.goto(`${admin}/Hosts.html`);
    await page.getByRole('button', { name: 'TestConn hostb' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('Test connection hostb');
    expect(toB()).toBeGreaterThanOrEqual(1);
    await page.getByRole('button', { name: 'CloseConn hostb' }).click();
    expect(await page.getByRole('status').first().textContent()).toMatch(/Close connections hostb: [1-9]\d* connection\(s\) closed/);
    await waitFor(() => toB() === 0, { what: 'no R66 connection left to hostb', timeoutMs: 10_000 });
    await context.close();
  }, 90_000);
});
