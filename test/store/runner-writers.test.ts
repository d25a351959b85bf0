/**
 * Who writes RUNNER rows (issue 33 item 2, decision 0047: one writer per transfer row). Only
 * src/store writes them, through the methods of RunnerRepository that say what the write is: a new
 * row, a move of the state machine, a named non-state update, a removal. This test reads
 * src/store/repository-types.ts for the methods RunnerRepository has, and greps src/ for calls on a
 * `runner` outside src/store: a method that is neither a read nor one of the named writes below
 * fails, and so does a new method of the interface not sorted into one of the two lists here (a
 * new write is a decision, not a side effect). A StateChange (the state columns the state
 * machine computed) is made by the state module only: a cast to it elsewhere fails too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli-helpers.js';

const SRC = path.join(ROOT, 'src');

/** The reads of RunnerRepository. */
const READS = ['get', 'findBySpecialId', 'list', 'count', 'tally', 'listDue'];

/** The writes callers outside src/store may use, each named for what it writes (repository-types.ts). */
const NAMED_WRITES = [
  // new rows (a row builder's record), rows from an export or a migration
  'insert', 'insertMany', 'importRows',
  // moves of the state machine: checked by the store, the engine's staged ones, the set-based ones
  'move', 'saveMoves', 'resetInterrupted', 'markFinishedAsDone',
  // named non-state updates
  'updateRank', 'updateInfo', 'reschedule', 'updateFilename', 'updateAlive',
  // removal and purge
  'delete', 'deleteWhere',
];

/** Any method called on a `runner` (`store.runner.x(`, `tx.runner?.x(`, `this.runner.x(`). */
const CALL = /\brunner\??\.(\w+)\(/g;

/**
 * The names a write would have (the removed whole-row saves `update`/`upsert`, `updateState` and
 * any new `setX`, `saveX`...); other names called on a `runner` belong to other objects of that
 * name (REST v1's business runner: `has`, `run`).
 */
const WRITE_NAME = /^(insert|upsert|update|save|set|put|patch|write|replace|delete|remove|reset|mark|move)/;

/** A hand-made StateChange: the brand says the state machine computed it. */
const STATE_CHANGE_CAST = /\bas (unknown as )?StateChange\b/g;

/** The module that makes StateChanges. */
const STATE_MODULE = 'src/model/transfer-state.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const relative = (file: string): string => path.relative(ROOT, file).split(path.sep).join('/');

/** The method names of RunnerRepository, read from its declaration. */
const RUNNER_METHODS = ((): string[] => {
  const text = readFileSync(path.join(SRC, 'store', 'repository-types.ts'), 'utf8');
  const start = text.indexOf('export interface RunnerRepository {');
  const body = text.slice(start, text.indexOf('\n}', start));
  return [...body.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1] as string);
})();

/** `file: runner.method()` for every call of a RunnerRepository method, or a write's name, outside `allowed`. */
function callsOutside(files: string[], allowed: readonly string[]): string[] {
  return files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(CALL)]
    .map((m) => m[1] as string).filter((m) => !allowed.includes(m) && (WRITE_NAME.test(m) || RUNNER_METHODS.includes(m)))
    .map((m) => `${relative(file)}: runner.${m}()`));
}

describe('RUNNER writers outside src/store', () => {
  const outside = sourceFiles(SRC).filter((f) => !relative(f).startsWith('src/store/'));

  it('only the reads and the named writes of RunnerRepository are called outside src/store', () => {
    expect(callsOutside(outside, [...READS, ...NAMED_WRITES])).toEqual([]);
  });

  it('every method of RunnerRepository is a read or a named write', () => {
    expect(RUNNER_METHODS).toContain('move');
    expect(RUNNER_METHODS.filter((m) => !READS.includes(m) && !NAMED_WRITES.includes(m))).toEqual([]);
  });

  it('a StateChange is made by the state module only', () => {
    const casts = sourceFiles(SRC).filter((f) => relative(f) !== STATE_MODULE)
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(STATE_CHANGE_CAST)].map(() => relative(f)));
    expect(casts).toEqual([]);
  });

  it('the scan finds the calls it looks for (the forms of a call, a method not allowed)', () => {
    const text = 'await this.opts.store.runner?.update(record); await tx.runner.insertMany(rows); runner.get(key); const c = x as StateChange;';
    expect([...text.matchAll(CALL)].map((m) => m[1])).toEqual(['update', 'insertMany', 'get']);
    expect([...text.matchAll(STATE_CHANGE_CAST)]).toHaveLength(1);
  });
});
