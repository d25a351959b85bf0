// The opt-in frame trace (src/net/frame-trace.ts): its line format, and nothing when not asked for.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFrameTrace, frameTrace } from '../../src/net/frame-trace.js';

describe('frame trace', () => {
  it('is off unless SVC_FRAME_TRACE is set', () => {
    expect(process.env.SVC_FRAME_TRACE).toBeUndefined();
    expect(frameTrace).toBeNull();
  });

  it('appends one line per frame: time, direction, packet type, frames per write', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'trace-')), 'tl.1');
    const trace = createFrameTrace(file);
    const before = Date.now();
    trace.sent(7);
    trace.sent(3, 4);
    trace.received(14);
    await expect(readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    trace.flush();
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n').map((l) => l.split(' '));
    expect(lines.map((l) => l.slice(1).join(' '))).toEqual(['S 7', 'S 3 x4', 'R 14']);
    for (const [t] of lines) expect(Math.abs(Number(t) - before)).toBeLessThan(60_000);
    expect(Number(lines[0]?.[0])).toBeLessThanOrEqual(Number(lines[2]?.[0]));
  });

  it('a file that cannot be written is dropped without an error', () => {
    const trace = createFrameTrace('/nonexistent-dir/for/sure/tl.1');
    trace.received(3);
    expect(() => trace.flush()).not.toThrow();
  });
});
