/**
 * Who writes RUNNER rows (issue 33 item 2: one writer per transfer row). The goal is that only
 * src/store writes them, through methods that take a move of the state machine or a named non-state
 * update. Until the calls below are gone this test is a ratchet: it greps src/ for the RUNNER
 * repository's write methods called outside src/store and fails when a file not listed here writes
 * RUNNER, or a listed file writes more often than listed. Remove a call: lower its count here. The
 * named non-state updates (updateRank: progress, updateInfo: the transfer information) are the
 * allowed form and not counted; updateState is, since it still takes any columns, not only a move.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli-helpers.js';

const SRC = path.join(ROOT, 'src');

/** The write methods of RunnerRepository (src/store/repository-types.ts), called on a `runner`. */
const WRITE = /\brunner\??\.(insert|insertMany|upsert|update|updateState|delete|deleteWhere|resetInterrupted|markFinishedAsDone)\(/g;

/** Whole-row saves: every column from the caller's record, past the state machine. */
const WHOLE_ROW = new Set(['update', 'upsert']);

/** Writes outside src/store today (2026-12-02): the debt item 2 of issue 33 pays back. */
const KNOWN: Record<string, Record<string, number>> = {
  'src/admin/history.ts': { delete: 1, deleteWhere: 1, markFinishedAsDone: 1, updateState: 1 },
  'src/admin/migration/migrate.ts': { insertMany: 1 },
  'src/admin/r66-exports.ts': { deleteWhere: 1 },
  'src/cli/r66client/log-export.ts': { markFinishedAsDone: 1, upsert: 1 },
  'src/cli/r66client/send.ts': { delete: 1 },
  'src/cluster/member.ts': { updateState: 3 },
  'src/http/v1/models/transfers.ts': { delete: 1, update: 1, upsert: 1 },
  'src/operations/requester-record.ts': { insert: 1, updateState: 1 },
  'src/operations/stored-orders.ts': { updateState: 3 },
  'src/operations/transfer-orders.ts': { delete: 3, insert: 4, insertMany: 1, updateState: 2 },
  'src/server/transfer-service.ts': { markFinishedAsDone: 1 },
  'src/transfer/engine.ts': { updateState: 1 },
  'src/transfer/persistence.ts': { insert: 1, update: 1, updateState: 1 },
  'src/transfer/requested.ts': { update: 1 },
  'src/transfer/scheduler.ts': { markFinishedAsDone: 1, resetInterrupted: 1, updateState: 4 },
  'src/transfer/unrecorded-ends.ts': { updateState: 1 },
  'src/watch/orders.ts': { delete: 1 },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** RUNNER writes per file (relative to the repository) and method. */
function runnerWrites(files: string[]): Record<string, Record<string, number>> {
  const found: Record<string, Record<string, number>> = {};
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(WRITE)) {
      const rel = path.relative(ROOT, file).split(path.sep).join('/');
      const method = m[1] as string;
      const counts = (found[rel] ??= {});
      counts[method] = (counts[method] ?? 0) + 1;
    }
  }
  return found;
}

describe('RUNNER writers outside src/store', () => {
  const outside = runnerWrites(sourceFiles(SRC).filter((f) => !path.relative(SRC, f).startsWith(`store${path.sep}`)));

  it('no file writes RUNNER more than it did: new writes go through src/store methods', () => {
    const added: string[] = [];
    for (const [file, methods] of Object.entries(outside)) {
      for (const [method, n] of Object.entries(methods)) {
        const allowed = KNOWN[file]?.[method] ?? 0;
        if (n > allowed) added.push(`${file}: runner.${method}() ${n} times, ${allowed} allowed${WHOLE_ROW.has(method) ? ' (a whole-row save)' : ''}`);
      }
    }
    expect(added).toEqual([]);
  });

  it('the scan finds the writes it looks for (a known caller, the forms of a call)', () => {
    expect(outside['src/operations/transfer-orders.ts']?.insert).toBeGreaterThan(0);
    expect([...'await this.opts.store.runner?.update(record); await tx.runner.insertMany(rows); runner.get(key)'.matchAll(WRITE)].map((m) => m[1])).toEqual(['update', 'insertMany']);
  });
});
