/**
 * Which of V8's compilers a client command uses (decision 0021).
 *
 * A client command is a process of a few seconds: `send` of one file, `msend` of a few hundred.
 * In such a process V8's optimizing compiler (TurboFan) compiles the functions that become hot on
 * background threads, about 150 of them (0.4 CPU s) during an `msend` of 500 files of 250 KB,
 * on the same cores as the partner and the transfers' own threads; the client's time goes mostly to
 * native work (hashing, SQLite, the socket and the file system), which optimized JavaScript does
 * not speed up. Without it the client used 1.4 CPU s instead of 1.7-1.8 and small-seq went 6-16%
 * faster (docs/performance.md, "Twelfth pass"); a 1 GiB `send` and an `msend` of 2000 files were
 * no slower. Servers, which run for months, keep V8's defaults.
 */
import { setFlagsFromString } from 'node:v8';
import { envFlag } from '../../config/env-flag.js';
import { commandLineSets } from '../../config/node-flags.js';

/** `SVC_R66_CLIENT_OPTIMIZER=1` lets V8 optimize the client's hot functions as in any Node process. */
const CLIENT_OPTIMIZER_VARIABLE = 'SVC_R66_CLIENT_OPTIMIZER';

/** Node command-line flags that choose about TurboFan themselves. */
const OPTIMIZER_FLAGS = ['--opt', '--no-opt', '--turbofan', '--no-turbofan', '--max-opt'];

/**
 * Whether this client process keeps V8's optimizing compiler: when `SVC_R66_CLIENT_OPTIMIZER` is 1,
 * or when the node command line chose (`node --turbofan bin/svc-r66client.js ...`). A value of the
 * variable other than 1/0 throws an EnvSettingError naming it.
 */
export function clientKeepsOptimizer(env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  const wanted = envFlag(env, CLIENT_OPTIMIZER_VARIABLE) ?? false;
  return wanted || commandLineSets(execArgv, OPTIMIZER_FLAGS);
}

/** Turns V8's optimizing compiler off for this process unless clientKeepsOptimizer(); returns whether it did. */
export function keepClientOnBaselineCompilers(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): boolean {
  if (clientKeepsOptimizer(env, execArgv)) return false;
  setFlagsFromString('--no-opt');
  return true;
}
