// `svc-r66client gui` in chromium against a real svc-r66server: the printed URL's one-time token
// opens the page once; sending a file, pulling one and listing the partner's files run the CLI's
// own commands (the files arrive), and the page follows them; SIGTERM ends it with exit 0.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, spawnCli, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, SEND_RULE, startNode, writeNodePair, type Node } from '../transfer/servers.js';
import { launchBrowser } from './browser.js';

const RULES = { ...SEND_RULE, 'recv.rule.xml': '<rule><idrule>recv</idrule><hostids/><mode>2</mode></rule>\n' };

let box: Sandbox;
let a: Node;
let b: Node;
let gui: Running;
let browser: Browser;

beforeAll(async () => {
  box = sandbox();
  ({ a, b } = await writeNodePair(box, { rules: RULES }, { rules: RULES }));
  // hosta is the client: its client.xml shares its database and directories.
  const server = readFileSync(join(a.confDir, 'server.xml'), 'utf8');
  const part = (name: string): string => new RegExp(`<${name}>[\\s\\S]*?</${name}>`).exec(server)![0];
  writeFileSync(join(a.confDir, 'client.xml'), `<config>${part('identity')}<client/>${part('directory')}${part('db')}</config>\n`);
  await startNode(b);
  gui = spawnCli('client', ['gui'], a.env);
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (gui?.child.exitCode === null) gui.child.kill('SIGKILL');
  killNodes(a, b);
  box?.cleanup();
});

async function lastJob(page: Page, what: string): Promise<string> {
  return waitFor(async () => {
    await page.goto(page.url().split('?')[0]!);
    const cell = await page.locator('table').first().locator('tbody tr').first().textContent();
    return cell !== null && /exit \d+/.test(cell) ? cell : undefined;
  }, { what, timeoutMs: 30_000 });
}

describe('svc-r66client gui', () => {
  it('opens once with the printed token, sends, pulls and lists through the CLI commands, stops on SIGTERM', async () => {
    const url = await waitFor(() => /open (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(gui.stdout())?.[1], { what: 'the printed URL', timeoutMs: 20_000 });
    const root = url.split('?')[0]!;
    expect((await fetch(root)).status).toBe(403);
    expect((await fetch(`${root}?token=${'0'.repeat(32)}`)).status).toBe(403);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    expect(page.url()).toBe(root);
    // The token was for one use.
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(403);

    writeFileSync(join(a.home, 'out', 'hello.txt'), 'hello from the gui');
    const send = page.locator('form[action="/send"]');
    await send.getByLabel('Partner (-to)').fill('hostb');
    await send.getByLabel('Local file (-file)').fill('hello.txt');
    await send.getByLabel('Rule (-rule)').fill('send');
    await send.getByRole('button', { name: 'Send' }).click();
    expect(await lastJob(page, 'the send command')).toContain('exit 0');
    const arrived = (dir: string, name: string): string | undefined => readdirSync(dir).find((f) => f === name || f.endsWith(`_${name}`));
    const sent = await waitFor(() => arrived(join(b.home, 'in'), 'hello.txt'), { what: 'the sent file on hostb' });
    expect(readFileSync(join(b.home, 'in', sent), 'utf8')).toBe('hello from the gui');

    writeFileSync(join(b.home, 'out', 'remote.txt'), 'pulled by the gui');
    const pull = page.locator('form[action="/pull"]');
    await pull.getByLabel('Partner (-to)').fill('hostb');
    await pull.getByLabel('File on the partner (-file)').fill('remote.txt');
    await pull.getByLabel('Rule (-rule)').fill('recv');
    await pull.getByRole('button', { name: 'Pull' }).click();
    expect(await lastJob(page, 'the pull')).toContain('exit 0');
    const pulled = await waitFor(() => arrived(join(a.home, 'in'), 'remote.txt'), { what: 'the pulled file on hosta' });
    expect(readFileSync(join(a.home, 'in', pulled), 'utf8')).toBe('pulled by the gui');

    const list = page.locator('form[action="/list"]');
    await list.getByLabel('Partner (-to)').fill('hostb');
    await list.getByLabel('Rule (-rule)').fill('recv');
    await list.getByRole('button', { name: 'List' }).click();
    const listed = await lastJob(page, 'the list');
    expect(listed).toContain('getinfo -to hostb -rule recv -file * -list');
    expect(listed).toContain('remote.txt');
    // The client's own transfers (its database) are shown too.
    expect(await page.locator('table').nth(1).textContent()).toContain('remote.txt');
    await page.screenshot({ path: join(import.meta.dirname, '..', '..', 'docs', 'web-ui', 'client-gui.png'), fullPage: true });
    await context.close();

    gui.child.kill('SIGTERM');
    expect((await gui.exited).code).toBe(0);
  }, 90_000);
});
