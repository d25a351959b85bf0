/**
 * Settings this version reads (so a file written for the original loads) but does not act on yet.
 * Each one in use is reported once at every start with a WARN line naming the element, so nothing
 * an operator configured is silently ignored (issue 22 item 3).
 *
 * One list, one entry per setting: whoever implements a setting deletes its entry here in the same
 * commit (web UI: serverhttpport/serverhttpsport/usehttpcomp; monitoring: pushMonitor, snmpconfig,
 * logback files; ...).
 */
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ClientConfig, ServerConfig } from './types.js';
import { unreadElements, type SectionReader } from './values.js';

/** What an entry looks at: the loaded configuration and the logback file beside it, if any. */
export interface SettingContext<C> {
  config: C;
  /** `logback-<role>.xml` beside the configuration file or in `<conf>`, when it exists. */
  logbackFile: string | undefined;
}

export interface IgnoredSetting<C> {
  /** The element as the operator finds it in the file (`network/serverhttpport`). */
  element: string;
  /** What the original does with it that this version does not do yet. */
  effect: string;
  /** The value in use (text for the message), or undefined when the configuration does not use it. */
  used(ctx: SettingContext<C>): string | undefined;
}

const when = (on: boolean, value: string | number): string | undefined => (on ? String(value) : undefined);

/** server.xml elements (and the server's logback file) read but not acted on. */
export const IGNORED_SERVER_SETTINGS: ReadonlyArray<IgnoredSetting<ServerConfig>> = [
  {
    element: 'server/uselocalexec', effect: 'EXEC tasks run as local processes, not through a LocalExec daemon',
    used: ({ config }) => when(config.server.useLocalExec, `${config.server.localExecAddress}:${config.server.localExecPort}`),
  },
  {
    element: 'server/businessfactory', effect: 'the fixed business registry answers business requests (docs/transfers.md)',
    used: ({ config }) => config.server.businessFactory,
  },
  {
    element: 'limit/usethrift', effect: 'no Thrift RPC service is started',
    used: ({ config }) => when(config.limits.useThrift > 0, config.limits.useThrift),
  },
  {
    element: 'limit/usecpulimit', effect: 'new requests are not refused on CPU load',
    used: ({ config }) => when(config.limits.useCpuLimit && config.limits.cpuLimit < 1, config.limits.cpuLimit),
  },
  {
    element: 'limit/highcpulimit', effect: 'the global bandwidth is not throttled on CPU load',
    used: ({ config }) => when(config.limits.highCpuLimit > 0, config.limits.highCpuLimit),
  },
];

/** client.xml elements (and the client's logback file) read but not acted on. */
// logback-client.xml is applied to the client commands' logger (src/server/logger.ts).
export const IGNORED_CLIENT_SETTINGS: ReadonlyArray<IgnoredSetting<ClientConfig>> = [];

/**
 * The logback file of an instance: beside server.xml / client.xml (CONFDIR, where the original's
 * scripts look, cli.md §1.1), else in the serverhome's conf directory.
 */
async function logbackFileOf(config: { file: string; directories: { conf: string } }, role: 'server' | 'client'): Promise<string | undefined> {
  for (const dir of [dirname(config.file), config.directories.conf]) {
    const file = join(dir, `logback-${role}.xml`);
    if (await stat(file).then((s) => s.isFile(), () => false)) return file;
  }
  return undefined;
}

// No file name in the text: the start-up log line carries the configuration file, and a rewritten
// copy of the file gives the same warnings.
function messages<C>(list: ReadonlyArray<IgnoredSetting<C>>, ctx: SettingContext<C>): string[] {
  const out: string[] = [];
  for (const s of list) {
    const value = s.used(ctx);
    if (value !== undefined) out.push(`<${s.element}> ${value} is not acted on in this version: ${s.effect}`);
  }
  return out;
}

/** One warning per server setting in use that this version ignores. */
export async function ignoredServerSettings(config: ServerConfig): Promise<string[]> {
  const logbackFile = await logbackFileOf(config, 'server');
  return messages(IGNORED_SERVER_SETTINGS, { config, logbackFile });
}

/** One warning per client setting in use that this version ignores. */
export async function ignoredClientSettings(config: ClientConfig): Promise<string[]> {
  const logbackFile = await logbackFileOf(config, 'client');
  return messages(IGNORED_CLIENT_SETTINGS, { config, logbackFile });
}

/**
 * Elements of the original's files this host reads past without acting on them (obsolete in the
 * original too, or misspellings it ignores), as `section/element`, with why. One WARN line at
 * start names those present with every other element not acted on (issue 34 item 5);
 * `svc-r66server migrate` reports the same line.
 */
const UNUSED_ELEMENTS: ReadonlyArray<readonly [string, string, string, ((s: SectionReader) => boolean)?]> = [
  ['limit', 'usefastmd5', 'obsolete'],
  ['limit', 'fastmd5', 'obsolete'],
  ['limit', 'nofastmd5', 'obsolete'],
  // True is what this host does anyway: only False is not acted on.
  ['limit', 'checkversion', 'False: the version exchange always runs', (s) => !s.boolean('checkversion', true)],
  ['server', 'businessfactorynetwork', 'not read by the original either'],
  ['business', 'businessids', 'the element read is businessid'],
  ['network', 'serverrestport', 'ignored by the original too: the REST port is rest/restport'],
  ['rest', 'serverrestport', 'ignored by the original too: the REST port is restport'],
];

/**
 * The one line naming every element of the file under `root` that this host does not act on, or
 * undefined when there is none: the elements no reader looked up (unknown here, misspelt, or of a
 * section read only in another mode: `<ssl>` without usessl), those of UNUSED_ELEMENTS present, and
 * the `ignored` settings in use (IGNORED_*_SETTINGS, each also explained on its own line). Called
 * once the whole file was read.
 */
export function unusedElementsLine(root: SectionReader, ignored: readonly string[] = []): string | undefined {
  if (root.element === undefined) return undefined;
  const known = UNUSED_ELEMENTS
    .filter(([sec, el, , used]) => root.section(sec).has(el) && (used === undefined || used(root.section(sec))))
    .map(([sec, el, why]) => [`${sec}/${el}`, why] as const);
  const named = new Set([...known.map(([path]) => path), ...ignored]);
  const unread = unreadElements(root.element).filter((path) => !named.has(path)).map((path) => [path, 'not read by svc-r66'] as const);
  const found = [...unread, ...known, ...ignored.map((path) => [path, 'its own warning says what is not done'] as const)].map(([path, why]) => `<${path}> (${why})`);
  return found.length === 0 ? undefined : `${root.file}: elements not acted on: ${found.join(', ')}`;
}

/** The elements of the ignored settings in use, for unusedElementsLine. */
export async function ignoredServerElements(config: ServerConfig): Promise<string[]> {
  const logbackFile = await logbackFileOf(config, 'server');
  return IGNORED_SERVER_SETTINGS.filter((s) => s.used({ config, logbackFile }) !== undefined).map((s) => s.element);
}
