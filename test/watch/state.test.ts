// The state file in the original's JSON, the lock file's stale-lock takeover, and the server's
// merge of full and delta reports.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filterFileMonitors, FileMonitorRegistry } from '../../src/server/filemonitors.js';
import { LONG_NONE, newItem } from '../../src/watch/item.js';
import { LockedError, WatchLock } from '../../src/watch/lock.js';
import { ReportBuilder } from '../../src/watch/report.js';
import { loadState, saveState } from '../../src/watch/state-file.js';

// The example of filewatcher.md §4.1, as the original writes it.
const ORIGINAL = `{
  "/data/HOSTA/spool/invoices/inv-0001.xml": {
    "file": "/data/HOSTA/spool/invoices/inv-0001.xml", "size": 18234, "hash": "yQKhdVZ5ap+Xr6O9rRMLBA==",
    "lastTime": 1710504000000, "timeUsed": 1710504004100, "used": true, "status": "DONE", "specialId": 7165003344123456789
  },
  "/data/HOSTA/spool/invoices/inv-0002.xml": {
    "file": "/data/HOSTA/spool/invoices/inv-0002.xml", "size": 0, "hash": null, "lastTime": -9223372036854775808,
    "timeUsed": -9223372036854775808, "used": false, "status": "START", "specialId": -9223372036854775808, "unknownProperty": 1
  }
}`;

describe('state file, lock and reports', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-watch-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the original's state file (64-bit ids exact) and writes it back the same way", async () => {
    const file = join(dir, 'status.json');
    writeFileSync(file, ORIGINAL);
    const { items, problem } = await loadState(file);
    expect(problem).toBeNull();
    const sent = items.get('/data/HOSTA/spool/invoices/inv-0001.xml')!;
    expect(sent).toMatchObject({ size: 18234, used: true, status: 'DONE', specialId: 7165003344123456789n, lastTime: 1710504000000 });
    expect(items.get('/data/HOSTA/spool/invoices/inv-0002.xml')).toMatchObject({ specialId: null, lastTime: null, hash: null, status: 'START' });
    sent.orders = [{ to: 'hostb', id: -9000000000000000001n, done: false }];
    await saveState(file, items.values());
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"specialId":7165003344123456789');
    expect(text).toContain(`"lastTime":${LONG_NONE}`);
    const again = await loadState(file);
    expect(again.items.get(sent.file)).toEqual(sent);
  });

  it('keeps a malformed state file aside and starts empty', async () => {
    const file = join(dir, 'status.json');
    writeFileSync(file, '{"a": {"file": "a", "specialId": "x"}');
    const { items, problem } = await loadState(file);
    expect(items.size).toBe(0);
    expect(problem).toContain('not valid JSON of a FileWatcher');
  });

  it('takes over the lock of a dead process, refuses a live one', async () => {
    const status = join(dir, 'status.json');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(`${status}.chk`, `${dead.stdout}\n`);
    const said: string[] = [];
    const lock = new WatchLock(status, { elapseMs: 100, onTakeover: (m) => said.push(m) });
    await lock.acquire();
    expect(said[0]).toMatch(/stale lock .*no longer running/);
    expect(readFileSync(`${status}.chk`, 'utf8').trim()).toBe(String(process.pid));
    // The parent of this process is alive and not us: the lock is held.
    writeFileSync(`${status}.chk`, `${process.ppid}\n`);
    await expect(new WatchLock(status, { elapseMs: 100, onTakeover: () => undefined }).acquire()).rejects.toBeInstanceOf(LockedError);
    writeFileSync(`${status}.chk`, `${process.pid}\n`);
    await lock.release();
    expect(existsSync(`${status}.chk`)).toBe(false);
  });

  it('server: full then delta reports merge; a delta for an unknown watcher asks for a full one', () => {
    const items = new Map([['/s/a', { ...newItem('/s/a'), size: 3 }], ['/s/b', newItem('/s/b')]]);
    const summary = { name: 'w1', directories: ['/s'], stopFile: '/stop', statusFile: '/st', elapse: 1000, recursive: false, globalOk: 1, globalError: 0, todayOk: 1, todayError: 0 };
    const builder = new ReportBuilder();
    const registry = new FileMonitorRegistry(() => 1000);
    const first = builder.build(summary, items);
    expect(JSON.parse(first.json)).toMatchObject({ '@class': 'org.waarp.common.filemonitor.FileMonitor$FileMonitorInformation', removedFileItems: null });
    expect(registry.update('hosta', first.json)).toBe('Validated');
    builder.commit(first.snapshot);
    items.delete('/s/b');
    items.set('/s/c', newItem('/s/c'));
    const delta = builder.build(summary, items);
    expect(JSON.parse(delta.json)).toMatchObject({ fileItems: { '/s/c': {} }, removedFileItems: ['/s/b'] });
    expect(Object.keys((JSON.parse(delta.json) as { fileItems: object }).fileItems)).toEqual(['/s/c']);
    expect(registry.update('hosta', delta.json)).toBe('Validated');
    const [m] = registry.list();
    expect(m!.detail!.files.map((f) => f.path).sort()).toEqual(['/s/a', '/s/c']);
    expect(new FileMonitorRegistry().update('hosta', delta.json)).toBe('needfull');
    expect(() => registry.update('hosta', '{"no": "name"}')).toThrow(/no name/);
    expect(filterFileMonitors(registry.list(), { status: 1 }, 1000 + 60_000, 30_000)).toHaveLength(1);
    expect(filterFileMonitors(registry.list(), { status: -1 }, 1000 + 60_001, 30_000)).toHaveLength(1);
  });
});
