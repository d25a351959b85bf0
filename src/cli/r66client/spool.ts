/**
 * `svc-r66client [HOSTID] spool [client.xml] [options]` (filewatcher.md §1-§2, cli.md §3.14): the
 * FileWatcher in the foreground. The watchers of the client.xml `spooleddaemon` section, or, when
 * it has none, the one watcher the options describe. Stops on the stop file, SIGHUP, SIGTERM or
 * Ctrl-C. Exit 2 for invalid parameters or configuration (no watcher could start), else 0.
 */
import { resolve } from 'node:path';
import { isSendMode } from '../../model/rule.js';
import { R66Error } from '../../model/r66-error.js';
import { defaultName, normaliseElapse, watchersOf, type WatcherConfig } from '../../watch/config.js';
import { WatchDaemon } from '../../watch/daemon.js';
import { aliveWindowMs, TransferOrders } from '../../operations/index.js';
import type { TransferEngine } from '../../transfer/index.js';
import { ServiceOrders } from '../../watch/watch-orders.js';
import { compileRegex } from '../../watch/scanner.js';
import type { InformAnswer } from '../../watch/watcher.js';
import { parseArgs, type ParsedArgs } from '../args.js';
import { UsageError } from '../cli-error.js';
import { businessRequest } from './business.js';
import { openEngine } from './send.js';
import { configFileAndArgs, guarded, withSession, type ClientCommandContext, type ClientSession } from './session.js';
import { SPOOL_EXIT } from '../exit-codes.js';
import { optionalNumber } from '../number-option.js';


const VALUE_OPTIONS = ['to', 'name', 'directory', 'rule', 'statusfile', 'stopfile', 'info', 'block', 'regex', 'elapse', 'minimalSize', 'limitParallel'];
const FLAGS = ['md5', 'nolog', 'submit', 'direct', 'recursive', 'logWarn', 'notlogWarn', 'parallel', 'sequential', 'ignoreAlreadyUsed'];

function parseSpoolArgs(args: readonly string[]): ParsedArgs {
  return parseArgs(args, {
    options: [
      ...VALUE_OPTIONS.map((name) => ({ name, value: 'VALUE' })),
      // The product name and the original's spellings (filewatcher.md, naming note).
      { name: 'svc', value: 'HOSTS', aliases: ['waarp'] }, { name: 'elapseSvc', value: 'MS', aliases: ['elapseWaarp'] },
      ...FLAGS.map((name) => ({ name })),
    ],
    maxPositionals: 0,
    command: 'spool',
  });
}

function listOf(v: string | undefined): string[] {
  return (v ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '');
}

/** The one watcher of the command line (§2.3). */
export function watcherFromArgs(p: ParsedArgs, hostId: string, defaultBlock: number): WatcherConfig {
  const missing = ['to', 'rule', 'directory', 'statusfile', 'stopfile'].filter((o) => (p.value(o) ?? '') === '');
  if (missing.length > 0) throw new UsageError(`the client.xml has no <spooleddaemon> section, so the options must define the watcher: missing ${missing.map((m) => `-${m}`).join(', ')}`);
  const directories = listOf(p.value('directory')).map((d) => resolve(d));
  // -submit is the default; -direct runs the transfers from this process.
  const submit = !p.has('direct');
  return {
    name: p.value('name') ?? defaultName(hostId, directories),
    to: listOf(p.value('to')),
    rule: p.value('rule') as string,
    statusFile: resolve(p.value('statusfile') as string),
    stopFile: resolve(p.value('stopfile') as string),
    directories,
    regex: p.value('regex'),
    recursive: p.has('recursive'),
    elapse: optionalNumber(p, 'elapse', 'spool -elapse', 1000),
    submit,
    parallel: !p.has('sequential'),
    limitParallel: optionalNumber(p, 'limitParallel', 'spool -limitParallel', 0),
    info: p.value('info') ?? 'noinfo',
    md5: p.has('md5'),
    block: optionalNumber(p, 'block', 'spool -block', defaultBlock),
    noLog: p.has('nolog'),
    waarpHosts: listOf(p.value('svc')),
    elapseWaarp: optionalNumber(p, 'elapseSvc', 'spool -elapseSvc', 5000),
    minimalSize: optionalNumber(p, 'minimalSize', 'spool -minimalSize', 0),
    ignoreAlreadyUsed: p.has('ignoreAlreadyUsed'),
    logWarn: !p.has('notlogWarn'),
  };
}

/** The watchers to run: the XML's when it defines any (§2.2), else the command line's. */
function watchersFor(session: ClientSession, args: readonly string[]): WatcherConfig[] {
  const { config } = session;
  const xml = config.spooledDaemon;
  let watchers: WatcherConfig[];
  if (xml !== null && xml.spooled.length > 0) {
    watchers = watchersOf(config.hostId, xml);
  } else {
    watchers = [watcherFromArgs(parseSpoolArgs(args), config.hostId, config.limits.blockSize)];
  }
  const statusFiles = new Set<string>();
  return watchers.map((w) => {
    try {
      compileRegex(w.regex);
    } catch (err) {
      throw new UsageError(`watcher ${w.name}: ${(err as Error).message}`);
    }
    if (statusFiles.has(w.statusFile)) throw new UsageError(`watcher ${w.name}: the status file ${w.statusFile} is used by another watcher`);
    statusFiles.add(w.statusFile);
    // submit forces sequential (§2.1).
    return { ...w, elapse: normaliseElapse(w.elapse), parallel: w.submit ? false : w.parallel };
  });
}

export interface SpoolHooks {
  /** Once every watcher that could start did its first scan (service mode: "ready"). */
  onStarted?(daemon: WatchDaemon): void;
}

async function inform(session: ClientSession, host: string, header: string): Promise<InformAnswer> {
  try {
    await businessRequest(await session.pool(), session.realHostId(host), header);
    return 'Validated';
  } catch (err) {
    if (err instanceof R66Error && err.message.includes('needfull')) return 'needfull';
    throw err;
  }
}

/**
 * The watchers' orders through the one order service (src/operations) of this client: submit
 * writes the TOSUBMIT row, send now runs on this process's engine, opened at the first direct
 * transfer with this same service as its `orders` (one TransferOrders per process). The watched
 * directories are where the files to send lie (file policy), for the service's checks and the
 * rows it creates for the engine (and its restarts of the same ids).
 */
function watchOrders(session: ClientSession, watched: string[]): ServiceOrders {
  const { config } = session;
  let engine: TransferEngine | undefined;
  const service = new TransferOrders({
    store: session.store, hostId: config.hostId, sslHostId: config.sslHostId, directories: config.directories, blockSize: config.limits.blockSize,
    partner: (id) => session.partner(id), extraServed: watched, live: () => engine, aliveWindowMs: aliveWindowMs(config.limits.timeoutCon),
  });
  return new ServiceOrders({
    service, store: session.store, realHostId: session.realHostId,
    startEngine: async () => {
      engine = await openEngine(session, watched, service);
    },
    stopEngine: async () => {
      await engine?.close();
    },
  });
}

/** Runs the watchers until they stop. */
export async function runSpool(ctx: ClientCommandContext, argv: readonly string[], hooks: SpoolHooks = {}): Promise<number> {
  return guarded(ctx.io, 'spool', { badSetup: SPOOL_EXIT.badSetup, unexpected: SPOOL_EXIT.badSetup }, async () => {
    const { configFile, args } = configFileAndArgs(ctx.instance, argv);
    return withSession(configFile, {}, async (session) => {
      if (session.config.spooledDaemon !== null && session.config.spooledDaemon.spooled.length > 0 && args.length > 0) {
        session.logger.warn('client.xml defines the watchers (<spooleddaemon>): the command-line options are ignored');
      }
      const configs = watchersFor(session, args);
      const orders = watchOrders(session, configs.flatMap((c) => c.directories));
      let started = false;
      const daemon: WatchDaemon = new WatchDaemon(configs, {
        logger: session.logger,
        orders,
        inform: (host, header) => inform(session, host, header),
        checkRule: async (id) => {
          const rule = await session.store.rules.get(id);
          if (rule === undefined) throw new Error(`rule ${id} is not known`);
          if (!isSendMode(rule.mode)) throw new Error(`rule ${id} is a receive rule: a watcher sends its files`);
        },
        events: process.env.SVC_WATCH_EVENTS !== '0',
        onScanned: () => {
          if (started) return;
          started = true;
          hooks.onStarted?.(daemon);
        },
      });
      const stop = (): void => daemon.stop();
      const signals = ['SIGHUP', 'SIGTERM', 'SIGINT'] as const;
      for (const s of signals) process.on(s, stop);
      try {
        const out = await daemon.run();
        for (const r of out.refused) ctx.io.err(`svc-r66client spool: watcher ${r.name}: ${r.reason}\n`);
        return out.ran === 0 && out.refused.length > 0 ? SPOOL_EXIT.badSetup : SPOOL_EXIT.ok;
      } finally {
        for (const s of signals) process.off(s, stop);
        await orders.close().catch(() => undefined);
      }
    });
  });
}

export function spoolCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  return runSpool(ctx, argv);
}
