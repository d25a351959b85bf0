/**
 * `svc-r66server init` (a new home with a chosen host id and ports) and `svc-r66server partner`
 * (two homes made partners of each other): a second local host in two commands (issue 22 item 1).
 *
 *   svc-r66server init -home DIR -hostid NAME -port N [-sslport N] [-restport N] [-httpport N] [-httpsport N]
 *   svc-r66server partner -home A -with B [-address HOST] [-withaddress HOST]
 */
import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseArgs } from '../args.js';
import { optionalNumber } from '../number-option.js';
import { CliError, UsageError } from '../cli-error.js';
import { loadconfAuthentFile } from '../db-commands.js';
import { EXIT_HOME_REFUSED, EXIT_OK } from '../exit-codes.js';
import { configFileOf, type Instance } from '../instance.js';
import type { ServerCommandContext } from './service.js';
import { ConfigError } from '../../config/index.js';
import { DatabaseToolError } from '../../server/database-tool.js';
import { ensureEmbeddedHome, type HomeOptions } from '../../server/embedded-home.js';
import { PairError, pairHomes, type HomeFiles } from '../../server/home-partners.js';
import { createLogger } from '../../server/logger.js';
import { isPortFree } from '../../server/ports.js';


/** Characters every partner (Java included) accepts in a host id. */
const HOST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;


export async function initCommand(ctx: ServerCommandContext, args: readonly string[]): Promise<number> {
  const parsed = parseArgs(args, {
    command: 'init', maxPositionals: 0,
    options: [
      { name: 'hostid', value: 'NAME' }, { name: 'port', value: 'N' }, { name: 'sslport', value: 'N' }, { name: 'restport', value: 'N' },
      { name: 'httpport', value: 'N' }, { name: 'httpsport', value: 'N' },
    ],
  });
  if (!ctx.instance.embedded) {
    throw new CliError(`init creates a home given by -home DIR (or SVC_R66_HOME); the instance ${ctx.instance.confDir} comes from ${ctx.instance.source}`, EXIT_HOME_REFUSED);
  }
  const hostId = parsed.value('hostid');
  if (hostId === undefined) throw new UsageError('init expects -hostid NAME (the new host id; two partners need two different ids)');
  if (!HOST_ID.test(hostId)) throw new UsageError(`-hostid '${hostId}': expected letters, digits, '.', '_' or '-' (at most 255)`);
  const port = optionalNumber(parsed, 'port', 'init -port');
  if (port === undefined) throw new UsageError('init expects -port N (the plain R66 port of the new host)');
  // Derived from -port so that homes made with ports a few apart never share a port.
  const chosen: Required<Pick<HomeOptions, 'port' | 'sslPort' | 'restPort'>> & HomeOptions = {
    hostId, port,
    sslPort: optionalNumber(parsed, 'sslport', 'init -sslport', port + 1),
    restPort: optionalNumber(parsed, 'restport', 'init -restport', port + 2),
    httpPort: optionalNumber(parsed, 'httpport', 'init -httpport', 0),
    httpsPort: optionalNumber(parsed, 'httpsport', 'init -httpsport', 0),
  };
  const listening: Array<[string, number]> = [['port', chosen.port], ['sslport', chosen.sslPort], ['restport', chosen.restPort], ['httpport', chosen.httpPort ?? 0], ['httpsport', chosen.httpsPort ?? 0]];
  const used = new Map<number, string>();
  for (const [option, value] of listening) {
    if (value === 0) continue;
    const other = used.get(value);
    if (other !== undefined) throw new UsageError(`-${option} ${value} is also -${other}; each listener needs its own port`);
    used.set(value, option);
    if (value > 65535) throw new UsageError(`-${option} ${value} is beyond 65535 (derived from -port ${port}); give -${option} N`);
    if (!(await isPortFree(value))) throw new CliError(`port ${value} (-${option}) is in use on this machine; choose another`, EXIT_HOME_REFUSED);
  }
  if (existsSync(configFileOf(ctx.instance, 'server'))) {
    throw new CliError(`${ctx.instance.confDir} is already a home (server.xml exists); init makes new homes only`, EXIT_HOME_REFUSED);
  }
  await ensureEmbeddedHome(ctx.instance.confDir, ctx.io, chosen).catch((err: unknown) => {
    throw new CliError(`cannot create the svc-r66 home ${ctx.instance.confDir}: ${err instanceof Error ? err.message : String(err)}`, EXIT_HOME_REFUSED);
  });
  ctx.io.out(`Start it with: svc-r66server -home ${ctx.instance.confDir} start\n`);
  return EXIT_OK;
}

function homeFiles(instance: Instance): HomeFiles {
  const serverXml = configFileOf(instance, 'server');
  if (!existsSync(serverXml)) throw new CliError(`${instance.confDir} is not a home: ${serverXml} not found (create it with svc-r66server init)`, EXIT_HOME_REFUSED);
  return { serverXml, authentFile: loadconfAuthentFile(instance, 'server') };
}

export async function partnerCommand(ctx: ServerCommandContext, args: readonly string[]): Promise<number> {
  const parsed = parseArgs(args, {
    command: 'partner', maxPositionals: 0,
    options: [{ name: 'with', value: 'DIR' }, { name: 'address', value: 'HOST' }, { name: 'withaddress', value: 'HOST' }],
  });
  const withDir = parsed.value('with');
  if (withDir === undefined) throw new UsageError('partner expects -with DIR (the other home)');
  const other: Instance = { confDir: resolve(withDir), name: basename(resolve(withDir)), embedded: true, source: '-home' };
  const log = createLogger({ level: process.env.SVC_LOG_LEVEL ?? 'warn', fd: 2 });
  try {
    const report = await pairHomes(homeFiles(ctx.instance), homeFiles(other), log, parsed.value('address'), parsed.value('withaddress'));
    ctx.io.out(`${report.lines.join('\n')}\nA running server sees its new partner at the next connection; send with: svc-r66client -home ${ctx.instance.confDir} send -to ${report.partnerOfA} -file FILE -rule send\n`);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof PairError || err instanceof ConfigError || err instanceof DatabaseToolError) throw new CliError(err.message, EXIT_HOME_REFUSED);
    throw err;
  }
}
