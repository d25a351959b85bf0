/**
 * Usage texts of the wrappers (cli.md §2, §3). Only commands that work are listed; later commands
 * (send, asend, getinfo...) add their line to `CLIENT_COMMANDS` when they land.
 */
import { CLIENT_OPTIONS_HELP, CLIENT_TRANSFER_HELP } from './r66client/help.js';

export interface CommandHelp {
  /** The command as typed, with its arguments (`loadauth FILE`). */
  synopsis: string;
  summary: string;
}

export const SERVER_COMMANDS: CommandHelp[] = [
  { synopsis: 'start', summary: 'run the server (foreground; background with SVC_SERVICE=1); both write the PID file' },
  { synopsis: 'stop', summary: 'stop the server (found by its PID file, however it was started)' },
  { synopsis: 'restart', summary: 'stop if running and start again in the background; else start' },
  { synopsis: 'status', summary: 'say whether the server runs (exit 0 running, 1 not running)' },
  { synopsis: 'initdb [OPTIONS]', summary: 'create or upgrade the database, optionally load files (see below)' },
  { synopsis: 'loadconf', summary: 'load authent-server.xml (or authent.xml) and the rule files of CONFDIR into the database' },
  { synopsis: 'loadauth FILE', summary: 'load partners from an authent.xml file into the database' },
  { synopsis: 'loadrule DIR', summary: 'load the *.rule.xml and *.rules.xml files of DIR into the database' },
  { synopsis: 'init -hostid ID -port N', summary: 'create the home -home DIR for host ID; -sslport, -restport (default N+1, N+2), -httpport, -httpsport' },
  { synopsis: 'partner -with DIR', summary: 'make this home and the home DIR partners (both partner files and databases; -address, -withaddress)' },
  { synopsis: 'migrate -from FILE [-client FILE] [-h2jar JAR] [-dry-run] [-force]', summary: 'take a Java R66 host over: its H2 database copied to SQLite (or PostgreSQL/MariaDB used in place), <db> repointed, *.bak kept' },
  { synopsis: 'help', summary: 'print this text' },
];

export const CLIENT_COMMANDS: CommandHelp[] = [
  ...CLIENT_TRANSFER_HELP,
  { synopsis: 'log-export [-purge] [-clean] [-start D] [-stop D] [-host H] [FILTERS]', summary: "export (and purge) a server's transfer history into its arch directory" },
  { synopsis: 'config-export -hosts|-rules [-business] [-alias] [-roles] [-host H]', summary: "export a server's configuration into its arch directory" },
  { synopsis: 'icaptest -file F|EICARTEST -to HOST (-service S | -model M) [...]', summary: 'send a file to an ICAP server for scanning (exit 0 clean, 4 virus found; cli.md §3.12)' },
  { synopsis: 'spool CLIENT.XML [OPTIONS]', summary: 'run FileWatchers in the foreground (the <spooleddaemon> sections, or one given by options)' },
  { synopsis: 'watcher start|stop|status|restart', summary: 'the FileWatchers of client.xml as a background service (PID file)' },
  { synopsis: 'gui', summary: 'open a local web page (127.0.0.1, one-time token) to send, pull, list and follow transfers' },
  { synopsis: 'initdb [OPTIONS]', summary: 'create or upgrade the database, optionally load files (see below)' },
  { synopsis: 'loadconf', summary: 'load authent.xml and the rule files of CONFDIR into the database' },
  { synopsis: 'loadauth FILE', summary: 'load partners from an authent.xml file into the database' },
  { synopsis: 'loadrule DIR', summary: 'load the *.rule.xml and *.rules.xml files of DIR into the database' },
  { synopsis: 'help', summary: 'print this text' },
];

const DB_OPTIONS = `initdb options (names are case-insensitive):
  -upgradeDb                 bring the schema up to date (always done by initdb)
  -dir DIR                   load the rule files of DIR
  -auth FILE                 load partners from an authent.xml file
  -limit FILE                load bandwidth limits from a limit file
  -loadAlias FILE            store an <aliases> file in this host's hostconfig row
  -loadRoles FILE            store a <roles> file in this host's hostconfig row
  -loadBusiness FILE         store a <business> file in this host's hostconfig row
  -loadExtendedTaskFactory LIST   extension task factories (comma-separated)
  -minimalSeq N              restart the transfer id sequence at N`;

const INSTANCE_HELP = (file: string): string => `Instance: HOSTID names a directory of the configuration root (INSTANCES_CONF, default
/etc/svc/conf.d) holding ${file}; without it the first such directory is used. CONFDIR
overrides the instance directory. Without any instance, the per-user home (-home DIR,
SVC_R66_HOME, default ~/.svc-r66) is used; 'svc-r66server start' creates it on first use.`;

function table(commands: CommandHelp[]): string {
  const width = Math.max(...commands.map((c) => c.synopsis.length)) + 2;
  return commands.map((c) => `  ${c.synopsis.padEnd(width)}${c.summary}`).join('\n');
}

export function serverUsage(): string {
  return `Usage: svc-r66server [HOSTID] [-home DIR] COMMAND [ARGS...]

Commands:
${table(SERVER_COMMANDS)}

${DB_OPTIONS}

${INSTANCE_HELP('server.xml')}
Environment: SVC_SERVICE=1 (start in background), PIDFILE, CONFDIR, INSTANCES_CONF,
SVC_R66_HOME, SVC_LOG_LEVEL.
`;
}

export function clientUsage(): string {
  return `Usage: svc-r66client [HOSTID] [-home DIR] COMMAND [ARGS...]

Commands:
${table(CLIENT_COMMANDS)}

${CLIENT_OPTIONS_HELP}

${DB_OPTIONS}

${INSTANCE_HELP('client.xml')}
Environment: CONFDIR, INSTANCES_CONF, SVC_R66_HOME, SVC_LOG_LEVEL.
`;
}
