/**
 * The store as every reader of this host sees it (issue 34 item 2): each transfer row read
 * through it names its file as an absolute path, a Java host's serverhome-relative FILENAME
 * (`/work/<id>_<rand>_name.r66`) resolved by the one function of fs/stored-path.ts. The server and
 * the client commands open their store through this, so resume, restart, REST, the web pages,
 * getinfo and the log export show and use the same path.
 */
import type { DirectoryConfig } from '../config/index.js';
import { mayBeRuleRelative, resolveStoredPath, storedPathRoots, withDirectories, type StoredPathRoots } from '../fs/stored-path.js';
import type { Rule } from '../model/rule.js';
import type { TransferRecord } from '../model/transfer.js';
import type { RuleRepository, RunnerRepository } from '../store/index.js';
import { ruleDirectories } from '../transfer/placement.js';

type WithRunner = { runner: RunnerRepository; rules: Pick<RuleRepository, 'get'>; transaction?: unknown };

/** Resolves the FILENAME of rows read together; a rule is read once per batch, and only when needed. */
type Fixer = (records: TransferRecord[]) => Promise<TransferRecord[]>;

function fixer(roots: StoredPathRoots, directories: DirectoryConfig, rules: Pick<RuleRepository, 'get'>): Fixer {
  return async (records) => {
    const ruleRoots = new Map<string, Promise<StoredPathRoots | undefined>>();
    const rootsOf = (idRule: string): Promise<StoredPathRoots | undefined> => {
      let found = ruleRoots.get(idRule);
      if (found === undefined) {
        found = rules.get(idRule).then((rule: Rule | undefined) => {
          if (rule === undefined) return undefined;
          const d = ruleDirectories(rule, directories);
          return withDirectories(roots, [d.in, d.out, d.work, d.arch]);
        }, () => undefined);
        ruleRoots.set(idRule, found);
      }
      return found;
    };
    for (const r of records) {
      const resolved = resolveStoredPath(r.filename, roots);
      if (resolved !== r.filename || !mayBeRuleRelative(r.filename, roots)) {
        r.filename = resolved;
        continue;
      }
      // Not one of the host's directories: perhaps one of the row's rule (below serverhome too).
      const withRule = await rootsOf(r.idRule);
      if (withRule !== undefined) r.filename = resolveStoredPath(r.filename, withRule);
    }
    return records;
  };
}

function resolvingRunner(runner: RunnerRepository, fix: Fixer): RunnerRepository {
  const wrapped: Partial<RunnerRepository> = {
    get: async (key) => {
      const r = await runner.get(key);
      return r === undefined ? undefined : (await fix([r]))[0];
    },
    findBySpecialId: async (owner, id) => fix(await runner.findBySpecialId(owner, id)),
    list: async (filter, options) => fix(await runner.list(filter, options)),
    listDue: async (owner, now, limit) => fix(await runner.listDue(owner, now, limit)),
  };
  return new Proxy(runner, {
    get(target, prop) {
      if (Object.hasOwn(wrapped, prop)) return wrapped[prop as keyof RunnerRepository];
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/**
 * `store` whose transfer rows (also inside its transactions) carry resolved file names. Inside a
 * transaction the rules are read through the transaction (one SQLite connection).
 */
export function resolvingStoredPaths<S extends WithRunner>(store: S, directories: DirectoryConfig): S {
  const roots = storedPathRoots(directories);
  const runner = resolvingRunner(store.runner, fixer(roots, directories, store.rules));
  const transaction = typeof store.transaction === 'function'
    ? <T>(fn: (tx: WithRunner) => Promise<T>): Promise<T> =>
      (store.transaction as (f: (tx: WithRunner) => Promise<T>) => Promise<T>).call(store, (tx) => fn({ ...tx, runner: resolvingRunner(tx.runner, fixer(roots, directories, tx.rules)) }))
    : undefined;
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'runner') return runner;
      if (prop === 'transaction' && transaction !== undefined) return transaction;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
