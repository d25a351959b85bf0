/**
 * `svc-r66server migrate -from <Java server.xml> [-client <Java client.xml>] [-h2jar <H2 jar>]
 * [-dry-run] [-force]` (issue 34, docs/migration.md): takes a Java R66 host over in one command.
 * Without -from, the instance's own server.xml is migrated; without -client, the client.xml beside
 * server.xml when there is one.
 * Exit codes: 0 done, 1 refused or unusable input, 2 configuration, 3 database.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { formatMigrationReport, migrateHost, MigrationError } from '../../admin/migration/index.js';
import { parseArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { configFileOf, type Instance } from '../instance.js';
import type { Io } from '../io.js';

export interface MigrateContext {
  instance: Instance;
  io: Io;
  env: NodeJS.ProcessEnv;
}

const OPTIONS = [
  { name: 'from', value: 'FILE' },
  { name: 'client', value: 'FILE' },
  { name: 'h2jar', value: 'JAR' },
  { name: 'dry-run', aliases: ['dryrun'] },
  { name: 'force' },
];

export async function migrateCommand(ctx: MigrateContext, args: readonly string[]): Promise<number> {
  const parsed = parseArgs(args, { options: OPTIONS, maxPositionals: 0, command: 'migrate' });
  const from = parsed.value('from') ?? configFileOf(ctx.instance, 'server');
  // The client.xml beside server.xml (an instance directory holds both): left on H2, the client
  // commands would use a second, empty database.
  const besideServer = parsed.has('from') ? join(dirname(from), 'client.xml') : configFileOf(ctx.instance, 'client');
  const client = parsed.value('client') ?? (existsSync(besideServer) ? besideServer : undefined);
  try {
    const report = await migrateHost({
      serverXml: from, clientXml: client, h2Jar: parsed.value('h2jar'),
      dryRun: parsed.has('dry-run'), force: parsed.has('force'), env: ctx.env,
    });
    ctx.io.out(formatMigrationReport(report));
    return 0;
  } catch (err) {
    if (err instanceof MigrationError) throw new CliError(`migrate: ${err.message}`, err.exitCode);
    throw err;
  }
}
