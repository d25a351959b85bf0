// Log lines: JSON for files and pipes, a short readable line on a terminal (unless SVC_LOG_FORMAT=json).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readableLine } from '../../src/server/logger.js';
import { ROOT } from '../cli/cli-helpers.js';

describe('readableLine', () => {
  it('keeps the local time, the level and the message, and the fields as key=value', () => {
    const line = JSON.stringify({ level: 40, time: '2026-01-02T03:04:05.678Z', pid: 12, hostid: 'hosta', msg: 'database not initialised', database: 'jdbc:sqlite:/x y', n: 3 });
    const time = new Date('2026-01-02T03:04:05.678Z').toTimeString().slice(0, 8);
    expect(readableLine(`${line}\n`)).toBe(`${time} WARN  database not initialised database="jdbc:sqlite:/x y" n=3\n`);
  });

  it('shows nested values as JSON and passes a line that is not JSON through', () => {
    expect(readableLine(JSON.stringify({ level: 30, time: '2026-01-02T03:04:05Z', msg: 'server started', components: ['database', 'identity'] })))
      .toMatch(/^\d\d:\d\d:\d\d INFO {2}server started components=\["database","identity"\]\n$/);
    expect(readableLine('plain text')).toBe('plain text\n');
  });
});

describe('createLogger output', () => {
  const script = `import('${join(ROOT, 'dist/server/logger.js')}').then((m) => m.createLogger({ base: { hostid: 'h' } }).info({ port: 6666 }, 'hello'))`;

  it('writes JSON lines to a pipe', () => {
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, SVC_LOG_FORMAT: '' } });
    expect(JSON.parse(out)).toMatchObject({ level: 30, hostid: 'h', port: 6666, msg: 'hello' });
  });

  it('writes readable lines to a terminal, JSON again with SVC_LOG_FORMAT=json', () => {
    // script(1) gives the child a pseudo-terminal as stdout.
    const onTty = (format: string): string => execFileSync('script', ['-qec', `${process.execPath} -e "${script}"`, '/dev/null'], {
      encoding: 'utf8', env: { ...process.env, SVC_LOG_FORMAT: format },
    }).replace(/\r/g, '');
    expect(onTty('')).toMatch(/^\d\d:\d\d:\d\d INFO {2}hello port=6666\n$/);
    expect(JSON.parse(onTty('json'))).toMatchObject({ msg: 'hello', port: 6666 });
  });
});
