// REST v1 `GET /log` with `purge` (rest-v1.md §12.5, history.md §3) over real HTTP on the three
// dialects: which RUNNER rows go and stay (read back with plain SQL), the exported file and the
// whole answer.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { host, startHarness, type Harness } from './harness.js';
import { cls, v1 } from './v1-client.js';

const LOGGER = { user: 'v1user', password: 'v1pwd' };
/** Ids above 2^53 catch any id that passes through a JavaScript number. */
const B = 1n << 62n;
const T0 = new Date(2024, 2, 10, 8, 0, 0, 0);
const at = (hours: number, ms = 0): Date => new Date(T0.getTime() + hours * 3_600_000 + ms);

type Row = Pick<TransferRecord, 'specialId' | 'ownerReq' | 'requester' | 'requested' | 'idRule' | 'updatedInfo' | 'globalStep' | 'globalLastStep' | 'start'>
  & { stepStatus?: TransferRecord['stepStatus'] };

/** The fixture: name -> row. `a*` belong to this server (hosta), `b*` to hostb. */
const ROWS: Record<string, Row> = {
  a1: { specialId: -5n, ownerReq: 'hosta', requester: 'hosta', requested: 'hostb', idRule: 'r1', updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, start: at(-24) },
  a2: { specialId: B + 1n, ownerReq: 'hosta', requester: 'hosta', requested: 'hostb', idRule: 'r1', updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, start: at(0) },
  a3: { specialId: B + 2n, ownerReq: 'hosta', requester: 'hostb', requested: 'hosta', idRule: 'r1', updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK, globalLastStep: TaskStep.TRANSFERTASK, start: at(1) },
  a4: { specialId: B + 3n, ownerReq: 'hosta', requester: 'hosta', requested: 'hostc', idRule: 'r2', updatedInfo: UpdatedInfo.TOSUBMIT, globalStep: TaskStep.NOTASK, globalLastStep: TaskStep.NOTASK, start: at(2) },
  a5: { specialId: B + 4n, ownerReq: 'hosta', requester: 'hosta', requested: 'hostb', idRule: 'r2', updatedInfo: UpdatedInfo.RUNNING, globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK, start: at(3) },
  a6: { specialId: B + 5n, ownerReq: 'hosta', requester: 'hostc', requested: 'hosta', idRule: 'r1', updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, start: at(4, 123) },
  a7: { specialId: B + 6n, ownerReq: 'hosta', requester: 'hosta', requested: 'hostb', idRule: 'r1', updatedInfo: UpdatedInfo.INTERRUPTED, globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK, start: at(5) },
  // Finished (ALLDONETASK) with a Warning step status but never marked DONE: `clean` makes it DONE.
  a8: { specialId: B + 7n, ownerReq: 'hosta', requester: 'hosta', requested: 'hostc', idRule: 'r2', updatedInfo: UpdatedInfo.NOTUPDATED, globalStep: TaskStep.POSTTASK, globalLastStep: TaskStep.ALLDONETASK, start: at(6), stepStatus: ErrorCode.Warning },
  // Running its error tasks: an error record that is exported but never purged.
  a9: { specialId: B + 8n, ownerReq: 'hosta', requester: 'hostb', requested: 'hosta', idRule: 'r1', updatedInfo: UpdatedInfo.RUNNING, globalStep: TaskStep.ERRORTASK, globalLastStep: TaskStep.TRANSFERTASK, start: at(7) },
  // Finished, never marked done, step status 'd' (SizeNotAllowed): 'd' > 'O' as a plain string comparison, so `clean` makes it DONE.
  aa: { specialId: -7n, ownerReq: 'hosta', requester: 'hosta', requested: 'hostc', idRule: 'r2', updatedInfo: UpdatedInfo.NOTUPDATED, globalStep: TaskStep.POSTTASK, globalLastStep: TaskStep.ALLDONETASK, start: at(-30), stepStatus: ErrorCode.SizeNotAllowed },
  // Another owner's copy of a2 (same id), and a later record of that owner.
  b1: { specialId: B + 1n, ownerReq: 'hostb', requester: 'hosta', requested: 'hostb', idRule: 'r1', updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, start: at(0) },
  b2: { specialId: B + 9n, ownerReq: 'hostb', requester: 'hostb', requested: 'hosta', idRule: 'r1', updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK, globalLastStep: TaskStep.PRETASK, start: at(1) },
};
const ALL = Object.keys(ROWS).sort();

function record(row: Row): TransferRecord {
  return {
    step: 0, rank: 3, blockSize: 65536, mode: 1, infoStatus: ErrorCode.CompleteOk, retrieveMode: false, isMoved: false, stop: new Date(row.start.getTime() + 1000),
    filename: '/in/f.txt', originalName: 'f.txt', fileInfo: '', transferInfo: '{}', ...row, stepStatus: row.stepStatus ?? ErrorCode.CompleteOk,
  };
}

const rowName = (id: unknown, owner: unknown): string =>
  ALL.find((n) => ROWS[n]!.specialId === BigInt(String(id)) && ROWS[n]!.ownerReq === owner) ?? `? ${String(id)}/${String(owner)}`;

describe.each(testDialects())('REST v1 /log purge on $name', (dbc) => {
  let db: TestDatabase | undefined;
  let h: Harness;
  beforeAll(async () => {
    db = await dbc.create();
    if (!db) return;
    h = await startHarness({ settings: db.settings, rest: { signature: true } });
    // A v1 user without LOGCONTROL.
    await h.store.hosts.upsert(host(h.config.identity.cryptoKey, 'v1plain', 'plainpw1', { port: -1, isClient: true, address: '0.0.0.0' }));
  });
  afterAll(async () => {
    await h?.close();
    await db?.drop();
  });

  /** Empties RUNNER, then writes the fixture. */
  async function seed(): Promise<void> {
    await db!.query('DELETE FROM RUNNER');
    for (const n of ALL) await h.store.runner.insert(record(ROWS[n]!));
    expect(await remaining()).toEqual(ALL);
  }

  /** Names of the rows still in RUNNER, read with plain SQL. */
  async function remaining(): Promise<string[]> {
    const rows = await db!.query<{ id: unknown; owner: unknown }>('SELECT specialid AS id, ownerreq AS owner FROM RUNNER');
    return rows.map((r) => rowName(r.id, r.owner)).sort();
  }

  /** GET /log with the packet; checks the envelope and the echo of the request, returns the result packet. */
  async function log(fields: Record<string, unknown>): Promise<{ filename: string; exported: number; purged: number }> {
    const packet = { '@class': cls('LogJsonPacket'), requestUserPacket: 16, comment: 'monthly purge', ...fields };
    const r = await v1(h, 'GET', '/log', { ...LOGGER, body: JSON.stringify(packet) });
    expect(r.status, r.text).toBe(200);
    const body = r.json();
    const result = (body.answer as { results: Array<Record<string, unknown>> }).results[0]!;
    const asEpoch = (v: unknown): unknown => (v === undefined || v === null ? null : typeof v === 'string' ? new Date(v).getTime() : v);
    expect(body).toEqual({
      'X-method': 'GET', 'X-Auth-User': 'v1user', path: '/log', base: 'log', uri: {}, command: 'GetLog', message: 'OK', code: 200,
      answer: {
        '@model': 'Log',
        results: [{
          '@class': cls('LogResponseJsonPacket'), comment: 'monthly purge', requestUserPacket: 16,
          purge: false, clean: false, statuspending: false, statustransfer: false, statusdone: false, statuserror: false,
          rule: null, request: null, startid: null, stopid: null, ...fields, start: asEpoch(fields.start), stop: asEpoch(fields.stop),
          command: 16, filename: result.filename, exported: result.exported, purged: result.purged,
        }],
      },
    });
    expect(result.filename).toMatch(new RegExp(`/arch/hosta_\\d+_runners\\.xml$`));
    return result as { filename: string; exported: number; purged: number };
  }

  /** Names of the rows in an exported file, in file order. */
  function exportedRows(file: string): string[] {
    const xml = readFileSync(file, 'utf8');
    return [...xml.matchAll(/<runner>[\s\S]*?<specialid>(-?\d+)<\/specialid>[\s\S]*?<ownerreq>([^<]*)<\/ownerreq>/g)]
      .map((m) => rowName(m[1], m[2]));
  }

  const without = (...names: string[]): string[] => ALL.filter((n) => !names.includes(n)).sort();

  it('exports without purging: nothing is deleted', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await seed();
    const r = await log({ statusdone: true });
    expect(r).toMatchObject({ exported: 3, purged: 0 });
    expect(exportedRows(r.filename)).toEqual(['a6', 'a2', 'a1']);
    expect(await remaining()).toEqual(ALL.slice().sort());
  });

  it('statusdone: purges the exported done records of this server only', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await seed();
    const r = await log({ purge: true, statusdone: true });
    expect(r).toMatchObject({ exported: 3, purged: 3 });
    expect(exportedRows(r.filename)).toEqual(['a6', 'a2', 'a1']);
    expect(await remaining()).toEqual(without('a1', 'a2', 'a6'));
  });

  it('statuserror with rule and partner: purges the error and interrupted records that match, not a running one', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await seed();
    const r = await log({ purge: true, statuserror: true, rule: 'r1', request: 'hostb' });
    expect(r).toMatchObject({ exported: 3, purged: 2 });
    expect(exportedRows(r.filename)).toEqual(['a9', 'a7', 'a3']);
    expect(await remaining()).toEqual(without('a3', 'a7'));
  });

  it('no status flag, id and date ranges (inclusive, to the millisecond): purges every matching record but the running one', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await seed();
    const r = await log({ purge: true, startid: String(B + 1n), stopid: String(B + 7n), start: at(1).toISOString(), stop: at(4, 123).getTime() });
    expect(r).toMatchObject({ exported: 4, purged: 3 });
    expect(exportedRows(r.filename)).toEqual(['a6', 'a5', 'a4', 'a3']);
    expect(await remaining()).toEqual(without('a3', 'a4', 'a6'));
    // One millisecond less at the top leaves a6 out.
    await seed();
    const less = await log({ purge: true, startid: String(B + 1n), stopid: String(B + 7n), start: at(1).toISOString(), stop: at(4, 122).getTime() });
    expect(less).toMatchObject({ exported: 3, purged: 2 });
    expect(await remaining()).toEqual(without('a3', 'a4'));
  });

  it('statuspending: the flag selects the export only; the purge takes every non-running record up to the highest exported id', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await seed();
    const r = await log({ purge: true, statuspending: true });
    expect(r).toMatchObject({ exported: 1, purged: 5 });
    expect(exportedRows(r.filename)).toEqual(['a4']);
    expect(await remaining()).toEqual(without('aa', 'a1', 'a2', 'a3', 'a4'));
    // statustransfer likewise: a9 and a5 are exported, then kept (running); the others up to a9's id go.
    await seed();
    const t = await log({ purge: true, statustransfer: true });
    expect(t).toMatchObject({ exported: 2, purged: 8 });
    expect(exportedRows(t.filename)).toEqual(['a9', 'a5']);
    expect(await remaining()).toEqual(['a5', 'a9', 'b1', 'b2']);
  });

  it('clean first: finished records never marked done are exported and purged with the done ones', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await seed();
    const r = await log({ purge: true, clean: true, statusdone: true });
    expect(r).toMatchObject({ exported: 5, purged: 5 });
    expect(exportedRows(r.filename)).toEqual(['a8', 'a6', 'a2', 'a1', 'aa']);
    expect(await remaining()).toEqual(without('a1', 'a2', 'a6', 'a8', 'aa'));
  });

  it('nothing exported, nothing purged; the empty export file is still written', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await seed();
    const r = await log({ purge: true, rule: 'nope' });
    expect(r).toMatchObject({ exported: 0, purged: 0 });
    expect(existsSync(r.filename)).toBe(true);
    expect(exportedRows(r.filename)).toEqual([]);
    expect(await remaining()).toEqual(ALL.slice().sort());
  });

  it('refuses a user without LOGCONTROL (400/400) and deletes nothing', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await seed();
    const r = await v1(h, 'GET', '/log', { user: 'v1plain', password: 'plainpw1', body: JSON.stringify({ '@class': cls('LogJsonPacket'), requestUserPacket: 16, purge: true }) });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ command: 'GetLog', code: 400, message: 'Bad Request', detail: 'role LOGCONTROL required' });
    expect(await remaining()).toEqual(ALL);
  });

  it('an export that cannot be written is 400/400 with the reason, and nothing is purged', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await seed();
    const arch = join(h.home, 'arch');
    renameSync(arch, `${arch}.away`);
    writeFileSync(arch, 'not a directory');
    try {
      const r = await v1(h, 'GET', '/log', { ...LOGGER, body: JSON.stringify({ '@class': cls('LogJsonPacket'), requestUserPacket: 16, purge: true, statusdone: true }) });
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(r.json()).toMatchObject({ command: 'GetLog', code: 400, message: 'Bad Request', detail: expect.stringContaining(arch) as unknown });
      expect(r.text).not.toMatch(/at .*\.(ts|js)|stack/);
    } finally {
      rmSync(arch);
      renameSync(`${arch}.away`, arch);
    }
    expect(await remaining()).toEqual(ALL);
  });
});
