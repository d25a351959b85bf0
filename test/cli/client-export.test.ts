// log-export and config-export (cli.md §3.10, §3.11; history.md §4.1, §5): the real svc-r66client
// against a real svc-r66server (hostb) on loopback; the server writes into its arch directory.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportWindow, parseExportDate } from '../../src/cli/r66client/log-export.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import { openStore, parseJdbcUrl } from '../../src/store/index.js';
import { waitFor } from '../helpers/wait.js';
import { hasNoStack, PASSWORD_HEX, runCli, sandbox, spawnCli, sqliteRows, writeInstance, type CliResult, type Instance, type Running, type Sandbox } from './cli-helpers.js';

let box: Sandbox;
let server: Running;
let b: Instance;
const clients: Record<'admin' | 'plain', { env: NodeJS.ProcessEnv; inst: Instance }> = {} as never;

const entry = (id: string, port: number, admin = false): string =>
  `<entry><hostid>${id}</hostid><address>127.0.0.1</address><port>${port}</port><key>${PASSWORD_HEX}</key>${admin ? '<admin>true</admin>' : ''}</entry>`;

const day = (d: number, h = 10): Date => new Date(2024, 2, d, h, 0, 0, 0);

function row(id: bigint, start: Date, stop: Date, updatedInfo: UpdatedInfo, over: Partial<TransferRecord> = {}): TransferRecord {
  const done = updatedInfo === UpdatedInfo.DONE;
  return {
    specialId: id, requester: 'hosta', requested: 'hostb', ownerReq: 'hostb',
    globalStep: done ? TaskStep.ALLDONETASK : TaskStep.ERRORTASK, globalLastStep: done ? TaskStep.ALLDONETASK : TaskStep.TRANSFERTASK,
    step: 0, rank: 3, blockSize: 65536, mode: 1, updatedInfo, stepStatus: done ? ErrorCode.CompleteOk : ErrorCode.TransferError,
    infoStatus: done ? ErrorCode.CompleteOk : ErrorCode.TransferError, retrieveMode: false, isMoved: false, start, stop,
    idRule: 'send', filename: `/in/f${id}.txt`, originalName: `f${id}.txt`, fileInfo: `info ${id}`, transferInfo: '{}',
    ...over,
  };
}

async function clientInstance(id: string, bPort: number): Promise<{ env: NodeJS.ProcessEnv; inst: Instance }> {
  const inst = writeInstance(join(box.dir, 'conf', id), { hostId: id });
  writeFileSync(join(inst.confDir, 'authent.xml'), `<authent>${entry(id, 1, true)}${entry('hostb', bPort)}</authent>\n`);
  writeFileSync(join(inst.confDir, 'getlogs.rule.xml'), GETLOGS_RULE);
  const env = { ...box.env, CONFDIR: inst.confDir };
  expect((await runCli('client', ['initdb', '-auth', join(inst.confDir, 'authent.xml'), '-dir', inst.confDir], env)).code).toBe(0);
  return { env, inst };
}

// A receive rule whose send directory on the server is its archive directory (for -ruleDownload).
const GETLOGS_RULE = '<rule><idrule>getlogs</idrule><hostids/><mode>2</mode><sendpath>arch</sendpath><recvpath>in/logs</recvpath></rule>\n';

beforeAll(async () => {
  box = sandbox();
  b = writeInstance(join(box.dir, 'conf', 'hostb'), { hostId: 'hostb' });
  writeFileSync(join(b.confDir, 'getlogs.rule.xml'), GETLOGS_RULE);
  // hosta is an administrator partner of hostb (FULLADMIN); hostc is a plain partner.
  writeFileSync(join(b.confDir, 'authent.xml'), `<authent>${entry('hostb', 6666, true)}${entry('hosta', 1, true)}${entry('hostc', 1)}</authent>\n`);
  const bEnv = { ...box.env, CONFDIR: b.confDir };
  expect((await runCli('server', ['initdb', '-auth', join(b.confDir, 'authent.xml'), '-dir', b.confDir], bEnv)).code).toBe(0);
  const store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${b.sqliteFile}`, 'svc', 'pw'), { hostId: 'hostb' });
  for (const r of [
    row(101n, day(1), day(1, 11), UpdatedInfo.DONE),
    row(102n, day(2), day(2, 11), UpdatedInfo.DONE),
    row(103n, day(3), day(3, 11), UpdatedInfo.INERROR),
    row(104n, day(4), day(4, 11), UpdatedInfo.DONE, { idRule: 'other' }),
    row(105n, day(5), day(5, 11), UpdatedInfo.DONE, { ownerReq: 'hosta' }),
  ]) await store.runner.insert(r);
  await store.hostConfigs.upsert({ hostId: 'hostb', business: '<business><businessid>hosta</businessid></business>', roles: '', aliases: '', others: '<root><version>3.6.0</version></root>', updatedInfo: 0 });
  await store.close();
  server = spawnCli('server', ['start'], bEnv);
  const port = await waitFor(() => /R66 plain listening on port (\d+)/.exec(server.stdout())?.[1], { what: 'hostb listening', timeoutMs: 20_000 });
  clients.admin = await clientInstance('hosta', Number(port));
  clients.plain = await clientInstance('hostc', Number(port));
}, 60_000);

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  box?.cleanup();
});

const archDir = (): string => join(b.serverHome, 'arch');
const client = (who: 'admin' | 'plain', args: string[]): Promise<CliResult> => runCli('client', args, clients[who].env);
// The fixture's rows (the -ruleDownload transfer adds one of its own, with a generated id).
const runnerIds = async (): Promise<string[]> => (await sqliteRows<{ specialid: number }>(b.sqliteFile, 'SELECT specialid FROM runner WHERE specialid < 1000 ORDER BY specialid')).map((r) => String(r.specialid));
const newestExport = (before: Set<string>): string => {
  const files = readdirSync(archDir()).filter((f) => /^hostb_\d+_runners\.xml$/.test(f) && !before.has(f));
  expect(files).toHaveLength(1);
  return join(archDir(), files[0] as string);
};
const archFiles = (): Set<string> => new Set(existsSync(archDir()) ? readdirSync(archDir()) : []);
const exportedIds = (xml: string): string[] => [...xml.matchAll(/<specialid>(-?\d+)<\/specialid>/g)].map((m) => m[1] as string);

describe('command-line dates (history.md §2.3)', () => {
  it('truncated yyyyMMddHHmmssSSS with separators; stop <= start becomes start + 24 h - 1 ms; none: stop = today 00:00', () => {
    expect(parseExportDate('2015/08/15')).toEqual(new Date(2015, 7, 15));
    expect(parseExportDate('2015-08-15 10:11:12.5')).toEqual(new Date(2015, 7, 15, 10, 11, 12, 500));
    expect(parseExportDate('garbage')).toBeUndefined();
    const w = exportWindow('20240310', '20240301');
    expect(w.stop?.getTime()).toBe(new Date(2024, 2, 11).getTime() - 1);
    const now = new Date(2024, 5, 7, 15, 30);
    expect(exportWindow(undefined, undefined, now)).toEqual({ stop: new Date(2024, 5, 7) });
  });
});

describe('log-export (cli.md §3.10)', () => {
  it('exports this owner\'s transfers of the window, id descending, in the runners format; nothing purged', async () => {
    const before = archFiles();
    const r = await client('admin', ['log-export', '-host', 'hostb', '-start', '20240301', '-stop', '20240304']);
    expect(r).toMatchObject({ code: 0, stdout: 'Exporting transfer history... done\n' });
    const xml = readFileSync(newestExport(before), 'utf8');
    expect(exportedIds(xml)).toEqual(['103', '102', '101']);
    expect(xml).toMatch(/^<taskrunners>\n {2}<runner>\n {4}<specialid>103<\/specialid>\n {4}<globalstep>5<\/globalstep>/);
    expect(xml).toContain('<starttrans>2024-03-03 10:00:00.0</starttrans>');
    expect(xml).not.toContain('<updatedinfo>');
    expect(await runnerIds()).toEqual(['101', '102', '103', '104', '105']);
  });

  it('the LogExport entry point prints the file and exits 0; an unknown host exits 10, 2 for the extended tool (wrapper: 1)', async () => {
    const r = await client('admin', ['LogExport', '-host', 'hostb', '-start', '20240301', '-stop', '20240302']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^history of hostb exported to .*\/arch\/hostb_\d+_runners\.xml\n$/);
    expect((await client('admin', ['LogExport', '-host', 'nosuchhost'])).code).toBe(10);
    // The extended tool exits 2 (cli.md §3.10), by its entry point or through an extended option.
    expect((await client('admin', ['LogExtendedExport', '-host', 'nosuchhost'])).code).toBe(2);
    expect((await client('admin', ['LogExport', '-host', 'nosuchhost', '-rule', 'send'])).code).toBe(2);
    const w = await client('admin', ['log-export', '-host', 'nosuchhost']);
    expect(w).toMatchObject({ code: 1, stdout: 'Exporting transfer history... *** ERROR ***\n' });
    expect(w.stderr).toContain('nosuchhost is not known');
    expect(hasNoStack(w.stderr)).toBe(true);
  });

  it('extended filters (-rule) send the JSON order: only finished transfers of that rule', async () => {
    const before = archFiles();
    const r = await client('admin', ['LogExtendedExport', '-host', 'hostb', '-rule', 'other', '-start', '20240301', '-stop', '20240310']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(1 transfers)');
    expect(exportedIds(readFileSync(newestExport(before), 'utf8'))).toEqual(['104']);
  });

  it('-ruleDownload fetches the exported file by a transfer with that rule; -import loads its transfers into the local database', async () => {
    const before = archFiles();
    const r = await client('admin', ['LogExtendedExport', '-host', 'hostb', '-rule', 'send', '-start', '20240301', '-stop', '20240303', '-ruleDownload', 'getlogs', '-import']);
    expect(r.code, r.stderr).toBe(0);
    const exported = newestExport(before);
    const local = /downloaded to (\S+) \(transfer -?\d+\)/.exec(r.stdout)?.[1];
    // The receiver names the file as for any received file (a unique prefix, then the original name).
    expect(local?.startsWith(join(clients.admin.inst.serverHome, 'in', 'logs') + '/')).toBe(true);
    expect(local?.endsWith(`_${basename(exported)}`)).toBe(true);
    expect(readFileSync(local!, 'utf8')).toBe(readFileSync(exported, 'utf8'));
    expect(r.stdout).toContain('2 transfers imported into the local database');
    const imported = await sqliteRows<{ specialid: number; idrule: string }>(clients.admin.inst.sqliteFile, "SELECT specialid, idrule FROM runner WHERE ownerreq = 'hostb' ORDER BY specialid");
    expect(imported).toEqual([{ specialid: 101, idrule: 'send' }, { specialid: 102, idrule: 'send' }]);
    // -import needs the downloaded file; -ruleDownload needs -host: bad arguments, nothing sent.
    const noDownload = await client('admin', ['LogExtendedExport', '-host', 'hostb', '-import']);
    expect(noDownload.code).toBe(1);
    expect(noDownload.stderr).toContain('-import needs -ruleDownload');
    expect((await client('admin', ['log-export', '-ruleDownload', 'getlogs'])).code).toBe(1);
    // An unusable rule fails with the transfer's code (the wrapper: 1).
    const badRule = await client('admin', ['log-export', '-host', 'hostb', '-rule', 'send', '-ruleDownload', 'nosuchrule']);
    expect(badRule.code).toBe(1);
    expect(hasNoStack(badRule.stderr)).toBe(true);
  });

  it('a partner without LOGCONTROL is refused: wrapper exit 1, tool exit = ordinal of BadAuthent', async () => {
    const w = await client('plain', ['log-export', '-host', 'hostb', '-purge']);
    expect(w).toMatchObject({ code: 1, stdout: 'Exporting transfer history... *** ERROR ***\n' });
    expect(w.stderr).toContain('Not correctly authenticated');
    expect((await client('plain', ['LogExport', '-host', 'hostb'])).code).toBe(ErrorCode.BadAuthent.ordinal);
    expect(await runnerIds()).toEqual(['101', '102', '103', '104', '105']);
  });

  it('-purge (legacy order 17) deletes this owner\'s finished transfers of the window only', async () => {
    const before = archFiles();
    const r = await client('admin', ['LogExport', '-host', 'hostb', '-purge', '-start', '20240301', '-stop', '20240303']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(', 2 purged');
    expect(exportedIds(readFileSync(newestExport(before), 'utf8'))).toEqual(['102', '101']);
    // 103 is in error (kept), 104 after the window, 105 owned by another host.
    expect(await runnerIds()).toEqual(['103', '104', '105']);
  });
});

describe('config-export (cli.md §3.11)', () => {
  it('-hosts -rules -business: the original\'s file names in the arch directory, listed by the wrapper', async () => {
    const r = await client('admin', ['config-export', '-host', 'hostb', '-hosts', '-rules', '-business', '-roles']);
    expect(r.code).toBe(0);
    const hosts = join(archDir(), 'hostb_Authentications.xml');
    const rules = join(archDir(), 'hostb.rules.xml');
    const business = join(archDir(), 'hostb_Business.xml');
    expect(r.stdout).toBe(`Exporting configuration... hosts exported to ${hosts}\nrules exported to ${rules}\nbusiness exported to ${business}\nroles: nothing exported\ndone\n`);
    const authent = readFileSync(hosts, 'utf8');
    for (const id of ['hosta', 'hostb', 'hostc']) expect(authent).toContain(`<hostid>${id}</hostid>`);
    expect(readFileSync(rules, 'utf8')).toMatch(/<rules>[\s\S]*<idrule>send<\/idrule>/);
    expect(readFileSync(business, 'utf8')).toBe('<business><businessid>hosta</businessid></business>');
    expect(existsSync(join(archDir(), 'hostb_Roles.xml'))).toBe(false);
  });

  it('business/alias/roles alone are refused before sending (exit 1); -role is accepted for -roles', async () => {
    const w = await client('admin', ['config-export', '-host', 'hostb', '-business', '-role']);
    expect(w).toMatchObject({ code: 1, stdout: 'Exporting configuration... *** ERROR ***\n' });
    expect(w.stderr).toContain('at least -hosts or -rules');
    expect((await client('admin', ['ConfigExport', '-host', 'hostb', '-alias'])).code).toBe(1);
  });

  it('unknown host: ConfigExport exits 10; a partner without CONFIGADMIN gets BadAuthent', async () => {
    expect((await client('admin', ['ConfigExport', '-host', 'nobody', '-hosts'])).code).toBe(10);
    const refused = await client('plain', ['ConfigExport', '-host', 'hostb', '-rules']);
    expect(refused.code).toBe(ErrorCode.BadAuthent.ordinal);
    expect(refused.stderr).toContain('BadAuthent');
  });
});
