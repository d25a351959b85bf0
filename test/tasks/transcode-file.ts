// Runs TRANSCODE the way a rule does, on a file of a test home: shared by the TRANSCODE tests.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { makeContext } from './helpers.js';
import { runOne } from './run-one.js';

/** Writes `input` as the current file, transcodes it into `out/out.bin`; the output bytes. */
export async function transcodeFile(home: string, input: Buffer | string, from: string, to: string): Promise<Buffer> {
  const file = join(home, 'in', 'data');
  writeFileSync(file, input);
  const ctx = makeContext(home, { currentFile: file });
  const out = join(home, 'out', 'out.bin');
  const r = await runOne('TRANSCODE', `-from ${from} -to ${to} -newfile ${out}`, ctx);
  expect(r, `${from} -> ${to}`).toEqual({ kind: 'success', data: out });
  return readFileSync(out);
}
