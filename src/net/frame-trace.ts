/**
 * An opt-in trace of the frames a process sends and receives, with their times, for latency work
 * (docs/performance.md "Fifth pass"): `SVC_FRAME_TRACE=/some/prefix` makes every svc process
 * append lines `<epoch ms with µs> <S|R> <packet type code>[ x<frames>]` to `/some/prefix.<pid>`.
 * `node bench/probes/frame-timeline.mjs /some/prefix` turns the files of a small-seq run into the
 * median of each step of a transfer.
 *
 * Only packet type codes and times are written: never ids, names or contents. Unset (the default),
 * the connection pays one null check per frame.
 */
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** Lines kept in memory before an append: the file is written about once per 30 small transfers. */
const LINES_PER_APPEND = 500;

export interface FrameTrace {
  /** Frames of packet type `code` handed to the socket (`count` > 1: in one write). */
  sent(code: number, count?: number): void;
  received(code: number): void;
  /** Appends what is buffered (also done when the process exits). */
  flush(): void;
}

/** A trace appending to `file`; lines are buffered, then appended synchronously. */
export function createFrameTrace(file: string): FrameTrace {
  const lines: string[] = [];
  const now = (): string => (performance.timeOrigin + performance.now()).toFixed(3);
  const flush = (): void => {
    if (lines.length === 0) return;
    const text = `${lines.join('\n')}\n`;
    lines.length = 0;
    try {
      appendFileSync(file, text);
    } catch {
      // A trace that cannot be written is dropped: it must never fail a transfer.
    }
  };
  const add = (line: string): void => {
    lines.push(line);
    if (lines.length >= LINES_PER_APPEND) flush();
  };
  return {
    sent: (code, count = 1) => add(`${now()} S ${code}${count > 1 ? ` x${count}` : ''}`),
    received: (code) => add(`${now()} R ${code}`),
    flush,
  };
}

function fromEnvironment(): FrameTrace | null {
  const prefix = process.env.SVC_FRAME_TRACE;
  if (prefix === undefined || prefix === '') return null;
  const trace = createFrameTrace(`${prefix}.${process.pid}`);
  process.on('exit', () => trace.flush());
  return trace;
}

/** This process's trace, or null when SVC_FRAME_TRACE is not set. */
export const frameTrace: FrameTrace | null = fromEnvironment();
