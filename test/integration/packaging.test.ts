// What docs/install.md shows of the package: the systemd units as shipped, the logrotate file run
// by the real logrotate on a real log, and a lock file whose packages accept the Node versions named.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli-helpers.js';

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'svc-packaging-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('packaging/', () => {
  it.each(['svc-r66server@.service', 'svc-r66server.service', 'svc-r66server.logrotate'])('docs/install.md shows %s as shipped', (name) => {
    expect(read('docs/install.md')).toContain(read(`packaging/${name}`).trimEnd());
  });

  it('the units run the foreground server, stopped by SIGTERM', () => {
    const unit = read('packaging/svc-r66server@.service');
    expect(unit).toMatch(/^Type=simple$/m);
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/svc-r66server %i start$/m);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(read('packaging/svc-r66server.service')).toMatch(/^ExecStart=\/usr\/bin\/svc-r66server -home \/var\/lib\/svc-r66 start$/m);
  });

  it('logrotate rotates the service-mode log by copy and truncate', () => {
    const log = join(dir, 'var', 'hosta', 'log', 'r66server.log');
    mkdirSync(join(dir, 'var', 'hosta', 'log'), { recursive: true });
    writeFileSync(log, '{"msg":"server started"}\n');
    // The shipped file with its paths moved under the test folder (no `su`: the test user owns them).
    const conf = read('packaging/svc-r66server.logrotate')
      .replace('/var/lib/svc/*/log/r66server.log', join(dir, 'var', '*', 'log', 'r66server.log'))
      .replace('/var/lib/svc-r66/data/log/r66server.log', join(dir, 'home', 'r66server.log'))
      .replace(/^\s*su .*$/m, '');
    writeFileSync(join(dir, 'logrotate.conf'), conf);
    const r = spawnSync('logrotate', ['-f', '-s', join(dir, 'state'), join(dir, 'logrotate.conf')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(`${log}.1`, 'utf8')).toBe('{"msg":"server started"}\n');
    expect(existsSync(log) && readFileSync(log, 'utf8')).toBe('');
  });

  it('every package of the lock file accepts Node 20.19.0 and 22.13.0 (npm ci without engine warnings)', () => {
    const semver = createRequire(import.meta.url)('semver') as { satisfies(v: string, r: string): boolean };
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string } }> };
    const refused: string[] = [];
    for (const [name, pkg] of Object.entries(lock.packages)) {
      const range = pkg.engines?.node;
      if (range === undefined) continue;
      for (const version of ['20.19.0', '22.13.0']) if (!semver.satisfies(version, range)) refused.push(`${name} (${range}) refuses ${version}`);
    }
    expect(refused).toEqual([]);
    expect(read('docs/install.md')).toContain('Node.js 20.19 or later');
  });
});
