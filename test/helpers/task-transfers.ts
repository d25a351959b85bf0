/**
 * Helpers for the integration tests of task types (test/integration/tasks-*.test.ts): rules built
 * from task lists, one real transfer between two in-process hosts with both RUNNER rows at their
 * final state, and a journal file the LOG task appends to (so a test sees which lists ran).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { TransferMode, type Rule, type RuleTask } from '../../src/model/rule.js';
import { UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import type { TransferOutcome, TransferRequest } from '../../src/transfer/index.js';
import { makeHostPair, rule, type HostOptions, type TestHost } from './hosts.js';
import { waitFor } from './wait.js';

/** hosta and hostb, each knowing the other (makeHostPair), and the journal file of the tests: `journal.txt` in hosta's home. */
export async function makeTaskHosts(optsA: HostOptions = {}, optsB: HostOptions = {}): Promise<{ a: TestHost; b: TestHost; journal: string }> {
  const { a, b } = await makeHostPair(optsA, optsB);
  return { a, b, journal: at(a, 'journal.txt') };
}

/** One rule task. */
export function task(type: string, arg: string, delay = 0): RuleTask {
  return { type, path: arg, delay };
}

/** A LOG task appending `tag` (variables allowed) to `journal` (LOG delay 2: last word = file). */
export function journalTask(journal: string, tag: string): RuleTask {
  return task('LOG', `${tag} ${journal}`, 2);
}

/** The words appended to a journal so far. */
export async function journalEntries(journal: string): Promise<string[]> {
  return (await readFile(journal, 'utf8').catch(() => '')).split(/\s+/).filter(Boolean);
}

/**
 * Adds `id` to both hosts: send mode by default (the requester sends). Every error list gets a
 * journal entry `<list>-<host>-#ERRORCODE#` after its own tasks, so a test sees that error tasks
 * ran and with which code.
 */
export async function addRulePair(hosts: TestHost[], id: string, journal: string, lists: (h: TestHost) => Partial<Rule>, mode = TransferMode.SENDMODE): Promise<void> {
  for (const h of hosts) {
    const own = lists(h);
    await h.addRule(rule(id, mode, {
      ...own,
      rErrorTasks: [...(own.rErrorTasks ?? []), journalTask(journal, `rerror-${h.id}-#ERRORCODE#`)],
      sErrorTasks: [...(own.sErrorTasks ?? []), journalTask(journal, `serror-${h.id}-#ERRORCODE#`)],
    }));
  }
}

export interface TransferEnds {
  out: TransferOutcome;
  /** The requester's RUNNER row at the end. */
  requester: TransferRecord;
  /** The requested host's RUNNER row once it reached its final state. */
  requested: TransferRecord;
}

const FINAL = new Set([UpdatedInfo.DONE, UpdatedInfo.INERROR, UpdatedInfo.INTERRUPTED]);

/** The requested host's row once final (its error tasks ran before it is written so). */
export async function finalRow(host: TestHost, key: { specialId: bigint; requester: string; requested: string }): Promise<TransferRecord> {
  return waitFor(async () => {
    const r = await host.row(key);
    return r && FINAL.has(r.updatedInfo) ? r : undefined;
  }, { what: `the final row of transfer ${key.specialId} on ${host.id}` });
}

/** Runs one transfer from `a` (requester) to `b` and returns both rows at their final state. */
export async function transferBetween(a: TestHost, b: TestHost, req: Omit<TransferRequest, 'partner'>): Promise<TransferEnds> {
  const out = await a.engine.transfer({ partner: b.id, ...req });
  const key = { specialId: out.record.specialId, requester: out.record.requester, requested: out.record.requested };
  const requester = (await a.row(key)) as TransferRecord;
  const requested = await finalRow(b, key);
  return { out, requester, requested };
}

/** Path inside a host's home. */
export function at(host: TestHost, ...parts: string[]): string {
  return path.join(host.home, ...parts);
}
