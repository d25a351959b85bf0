/**
 * The rows a host writes about itself: HOSTCONFIG (business, roles, aliases from the configuration
 * file, config.md §3.9-3.11, database.md §4.5) and CONFIGURATION (limits of a limit file).
 */
import type { ClientConfig, LimitFileConfig, ServerConfig } from '../config/index.js';
import { formatRoleSet } from '../config/index.js';
import { compactToString, el, section } from '../config/xml-write.js';
import type { HostConfig } from '../model/host-config.js';
import type { Limits } from '../model/limits.js';
import { CURRENT_SCHEMA_VERSION } from '../store/index.js';


export type HostConfigTexts = Partial<Pick<HostConfig, 'business' | 'roles' | 'aliases'>>;

/** The XML column texts for the lists that are non-empty in the file (only those overwrite). */
export function hostConfigFromSettings(config: ServerConfig | ClientConfig): HostConfigTexts {
  const texts: HostConfigTexts = {};
  if (config.business.length > 0) {
    texts.business = compactToString(section('business', config.business.flatMap((id) => el('businessid', id))));
  }
  if (config.aliases.length > 0) {
    texts.aliases = compactToString(section('aliases', config.aliases.map((a) =>
      section('alias', [...el('realid', a.realId), ...el('aliasid', a.aliasIds.join(' '))]))));
  }
  if ('roles' in config && config.roles.length > 0) {
    texts.roles = compactToString(section('roles', config.roles.map((r) =>
      section('role', [...el('roleid', r.hostId), ...el('roleset', formatRoleSet(r.roles))]))));
  }
  return texts;
}

/** `current` (or a new row) with the given non-undefined texts replaced. */
export function mergeHostConfig(current: HostConfig | undefined, texts: HostConfigTexts, hostId: string): HostConfig {
  const base: HostConfig = current ?? {
    hostId, business: '', roles: '', aliases: '', others: `<root><version>${CURRENT_SCHEMA_VERSION}</version></root>`, updatedInfo: 0,
  };
  return {
    ...base,
    business: texts.business ?? base.business,
    roles: texts.roles ?? base.roles,
    aliases: texts.aliases ?? base.aliases,
  };
}

/**
 * The CONFIGURATION row of a limit file (config.md §4.5): the intended effect, which 3.6.x misses
 * because it looks for the host id in the wrong element (listed in docs/compatibility.md).
 */
export function limitsRow(file: LimitFileConfig, ownHostId: string): Limits {
  return {
    hostId: file.hostId ?? ownHostId,
    readGlobalLimit: file.globalLimit,
    writeGlobalLimit: file.globalLimit,
    readSessionLimit: file.sessionLimit,
    writeSessionLimit: file.sessionLimit,
    delayLimit: file.delayLimit,
    updatedInfo: 0,
  };
}
