/**
 * Rolled log files as logback leaves them (docs/logging.md): compressed when the fileNamePattern ends
 * with .gz (gzip) or .zip (a zip archive), and totalSizeCap enforced by deleting the oldest rolled
 * files; on real files, checked with Debian's gzip and unzip.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLogbackSettings } from '../../src/config/logback.js';
import { RolledFiles, rollNaming } from '../../src/monitor/log-archive.js';
import { openLogRouter } from '../../src/monitor/logging.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);

let dir: string;
beforeAll(async () => { dir = await mkdtemp(path.join(tmpdir(), 'svc-logroll-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

const logback = (logDir: string, pattern: string, limits: string) => `<configuration>
  <appender name="FILE" class="ch.qos.logback.core.rolling.RollingFileAppender">
    <file>${logDir}/r66.log</file>
    <rollingPolicy class="ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy">
      <fileNamePattern>${logDir}/${pattern}</fileNamePattern>
      <maxFileSize>1KB</maxFileSize>${limits}
    </rollingPolicy>
    <encoder><pattern>%msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>`;

/** Writes `count` numbered lines of about 100 bytes through the router (rolls every ~10 lines), then closes it. */
async function writeLines(name: string, pattern: string, limits: string, count: number): Promise<string> {
  const logDir = path.join(dir, name);
  const file = path.join(dir, `${name}.xml`);
  await writeFile(file, logback(logDir, pattern, limits));
  const settings = await loadLogbackSettings(file, {});
  expect(settings.warnings).toEqual([]);
  const router = await openLogRouter(settings, 'INFO');
  for (let i = 0; i < count; i++) {
    router.write(`${JSON.stringify({ level: 30, time: new Date().toISOString(), msg: `line ${String(i).padStart(4, '0')} ${'x'.repeat(80)}` })}\n`);
    // pino-roll checks the size after each write and rolls on the next drain: lines spread in time.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await router.close();
  return logDir;
}

const numbers = (text: string): number[] => [...text.matchAll(/^line (\d{4}) /gm)].map((m) => Number(m[1]));

describe('rolled log files: compression and totalSizeCap (logback fileNamePattern .gz/.zip, totalSizeCap)', () => {
  it('.gz: every rolled file gzipped (gzip -t), the active one plain, together every line in order; maxHistory counts the archives', async () => {
    const logDir = await writeLines('gz', 'r66.%d{yyyy-MM-dd}.%i.log.gz', '<maxHistory>4</maxHistory>', 120);
    const names = (await readdir(logDir)).sort();
    const archives = names.filter((n) => n.endsWith('.gz'));
    const plain = names.filter((n) => n.endsWith('.log'));
    expect(plain, names.join(' ')).toHaveLength(1);
    expect(archives, names.join(' ')).toHaveLength(4);
    expect(names.filter((n) => n.includes('.tmp'))).toEqual([]);
    for (const a of archives) {
      expect(a).toMatch(/^r66\.\d+\.log\.gz$/);
      await run('gzip', ['-t', path.join(logDir, a)]);
    }
    const byNumber = (n: string): number => Number(/^r66\.(\d+)\./.exec(n)![1]);
    const texts = await Promise.all([...archives].sort((x, y) => byNumber(x) - byNumber(y)).map(async (a) => gunzipSync(await readFile(path.join(logDir, a))).toString()));
    const all = [...texts, await readFile(path.join(logDir, plain[0]!), 'utf8')].join('');
    const seen = numbers(all);
    // The newest lines, consecutive, up to the last one: the oldest files went with maxHistory.
    expect(seen.at(-1)).toBe(119);
    expect(seen[0]).toBeGreaterThan(0);
    expect(seen).toEqual(Array.from({ length: seen.length }, (_v, i) => seen[0]! + i));
    // The archive keeps the rolled file's modification time (set back through utimes, which rounds
    // to the millisecond: the active file, written within the same millisecond, may read earlier).
    const first = archives[0]!;
    expect((await stat(path.join(logDir, first))).mtimeMs).toBeLessThanOrEqual((await stat(path.join(logDir, plain[0]!))).mtimeMs + 1);
  });

  it('.zip: real zip archives of one entry (unzip -t), the entry named as the rolled file', async () => {
    const logDir = await writeLines('zip', 'r66.%i.log.zip', '', 40);
    const archives = (await readdir(logDir)).filter((n) => n.endsWith('.zip')).sort();
    expect(archives.length).toBeGreaterThanOrEqual(2);
    for (const a of archives) {
      await run('unzip', ['-t', path.join(logDir, a)]);
      const list = await run('unzip', ['-Z1', path.join(logDir, a)]);
      expect(list.stdout.trim()).toBe(a.replace(/\.zip$/, ''));
      const content = (await run('unzip', ['-p', path.join(logDir, a)])).stdout;
      expect(numbers(content).length).toBeGreaterThan(0);
    }
  });

  it('totalSizeCap: the oldest rolled files deleted until the rolled files together fit; the newest kept', async () => {
    const logDir = await writeLines('cap', 'r66.%d{yyyy-MM-dd}.%i.log', '<maxHistory>100</maxHistory><totalSizeCap>3KB</totalSizeCap>', 120);
    const names = await readdir(logDir);
    const sizes = await Promise.all(names.map(async (n) => ({ n, size: (await stat(path.join(logDir, n))).size })));
    const numberOf = (n: string): number => Number(/^r66\.(\d+)\.log$/.exec(n)![1]);
    const newest = Math.max(...names.map(numberOf));
    const rolled = sizes.filter((s) => numberOf(s.n) !== newest);
    expect(rolled.reduce((t, s) => t + s.size, 0)).toBeLessThanOrEqual(3 * 1024);
    expect(rolled.length).toBeGreaterThanOrEqual(2);
    // The rolled files left are the newest ones: their numbers end right below the active file's.
    expect(rolled.map((s) => numberOf(s.n)).sort((x, y) => x - y)).toEqual(Array.from({ length: rolled.length }, (_v, i) => newest - rolled.length + i));
  });

  it('sizes as logback reads them: a bare number is bytes, units KB/MB/GB with or without a space; a wrong one is warned', async () => {
    const file = path.join(dir, 'sizes.xml');
    await writeFile(file, logback(path.join(dir, 'sizes'), 'r66.%i.log.zip', '<totalSizeCap>5 MB</totalSizeCap>').replace('<maxFileSize>1KB</maxFileSize>', '<maxFileSize>2048</maxFileSize>'));
    expect((await loadLogbackSettings(file, {})).appenders[0]!.rolling).toMatchObject({ size: '2048b', totalSizeCap: 5 * 1024 ** 2, compression: 'zip' });
    await writeFile(file, logback(path.join(dir, 'sizes'), 'r66.%i.log', '<totalSizeCap>lots</totalSizeCap>').replace('<maxFileSize>1KB</maxFileSize>', '<maxFileSize>big</maxFileSize>'));
    const wrong = await loadLogbackSettings(file, {});
    expect(wrong.warnings.join('\n')).toMatch(/maxFileSize big is not a size/);
    expect(wrong.warnings.join('\n')).toMatch(/totalSizeCap lots is not a size/);
    const r = wrong.appenders[0]!.rolling!;
    expect([r.size, r.totalSizeCap, r.compression]).toEqual([undefined, undefined, undefined]);
  });

  it('a numbering restarted by pino-roll never overwrites an archive; leftovers of a dead process are removed', async () => {
    const logDir = path.join(dir, 'restart');
    await mkdir(logDir, { recursive: true });
    const older = Date.now() / 1000 - 3600;
    await writeFile(path.join(logDir, 'r66.1.log.gz'), 'yesterday');
    await utimes(path.join(logDir, 'r66.1.log.gz'), older, older);
    await writeFile(path.join(logDir, 'r66.1.log'), 'today 1\n');
    await writeFile(path.join(logDir, 'r66.2.log'), 'today 2 (active)\n');
    // A temporary archive of a process that no longer runs (pid 2^22 + 1 is above Linux's maximum).
    await writeFile(path.join(logDir, `r66.3.log.gz.${2 ** 22 + 1}.tmp`), 'partial');
    const errors: string[] = [];
    const rolled = new RolledFiles(path.join(logDir, 'r66.log'), { compression: 'gz', maxHistory: 5 }, (err) => errors.push(err.message));
    await rolled.housekeep(path.join(logDir, 'r66.2.log'));
    expect(errors).toEqual([]);
    expect((await readdir(logDir)).sort()).toEqual(['r66.1.log.1.gz', 'r66.1.log.gz', 'r66.2.log']);
    expect(gunzipSync(await readFile(path.join(logDir, 'r66.1.log.1.gz'))).toString()).toBe('today 1\n');
    expect(await readFile(path.join(logDir, 'r66.1.log.gz'), 'utf8')).toBe('yesterday');
    // Limits: maxHistory 1 keeps the newer archive.
    await new RolledFiles(path.join(logDir, 'r66.log'), { maxHistory: 1 }, (err) => errors.push(err.message)).housekeep(path.join(logDir, 'r66.2.log'));
    await waitFor(async () => (await readdir(logDir)).length === 2, { what: 'the older archive deleted' });
    expect((await readdir(logDir)).sort()).toEqual(['r66.1.log.1.gz', 'r66.2.log']);
    expect(rollNaming('/x/app')).toEqual({ base: '/x/app', ext: 'log' });
    expect(rollNaming('/x/r66.log')).toEqual({ base: '/x/r66', ext: 'log' });
  });
});
