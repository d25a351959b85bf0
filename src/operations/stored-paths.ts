/**
 * The store as every reader of this host sees it (issue 34 item 2): each transfer row read
 * through it names its file as an absolute path, a Java host's serverhome-relative FILENAME
 * (`/work/<id>_<rand>_name.r66`) resolved by the one function of fs/stored-path.ts. The server and
 * the client commands open their store through this, so resume, restart, REST, the web pages,
 * getinfo and the log export show and use the same path.
 */
import type { DirectoryConfig } from '../config/index.js';
import { resolveStoredPath, storedPathRoots } from '../fs/stored-path.js';
import type { TransferRecord } from '../model/transfer.js';
import type { RunnerRepository } from '../store/index.js';

type WithRunner = { runner: RunnerRepository; transaction?: unknown };

function resolvingRunner(runner: RunnerRepository, fix: (r: TransferRecord) => TransferRecord): RunnerRepository {
  const wrapped: Partial<RunnerRepository> = {
    get: async (key) => {
      const r = await runner.get(key);
      return r === undefined ? undefined : fix(r);
    },
    findBySpecialId: async (owner, id) => (await runner.findBySpecialId(owner, id)).map(fix),
    list: async (filter, options) => (await runner.list(filter, options)).map(fix),
    listDue: async (owner, now, limit) => (await runner.listDue(owner, now, limit)).map(fix),
  };
  return new Proxy(runner, {
    get(target, prop) {
      if (Object.hasOwn(wrapped, prop)) return wrapped[prop as keyof RunnerRepository];
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** `store` whose transfer rows (also inside its transactions) carry resolved file names. */
export function resolvingStoredPaths<S extends WithRunner>(store: S, directories: DirectoryConfig): S {
  const roots = storedPathRoots(directories);
  const fix = (r: TransferRecord): TransferRecord => {
    r.filename = resolveStoredPath(r.filename, roots);
    return r;
  };
  const runner = resolvingRunner(store.runner, fix);
  const transaction = typeof store.transaction === 'function'
    ? <T>(fn: (tx: WithRunner) => Promise<T>): Promise<T> =>
      (store.transaction as (f: (tx: WithRunner) => Promise<T>) => Promise<T>).call(store, (tx) => fn({ ...tx, runner: resolvingRunner(tx.runner, fix) }))
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
