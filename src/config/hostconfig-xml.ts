/**
 * The three XML texts of a HOSTCONFIG row (rest-v2.md §10.9, database.md §4.5) to and from
 * structured lists: business `<business><businessid>h</businessid>...`, roles
 * `<roles><role><roleid>h</roleid><roleset>A B</roleset></role>...`, aliases
 * `<aliases><alias><realid>h</realid><aliasid>a b</aliasid></alias>...`.
 */
import { XMLParser } from 'fast-xml-parser';
import { compactToString, el, section } from './xml-write.js';

const parser = new XMLParser({ parseTagValue: false, isArray: (name) => ['businessid', 'role', 'alias'].includes(name) });

function parse(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    return parser.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : v === undefined || v === null ? '' : String(v).trim());
const words = (v: unknown): string[] => str(v).split(/[\s|]+/).filter((w) => w !== '');

export function parseBusiness(text: string): string[] {
  const root = parse(text).business as { businessid?: unknown[] } | undefined;
  return (root?.businessid ?? []).map(str).filter((s) => s !== '');
}

export function parseRoles(text: string): Array<{ hostName: string; roleList: string[] }> {
  const root = parse(text).roles as { role?: Array<{ roleid?: unknown; roleset?: unknown }> } | undefined;
  return (root?.role ?? []).map((r) => ({ hostName: str(r.roleid), roleList: words(r.roleset).map((w) => w.toUpperCase()) }))
    .filter((r) => r.hostName !== '');
}

export function parseAliases(text: string): Array<{ hostName: string; aliasList: string[] }> {
  const root = parse(text).aliases as { alias?: Array<{ realid?: unknown; aliasid?: unknown }> } | undefined;
  return (root?.alias ?? []).map((a) => ({ hostName: str(a.realid), aliasList: words(a.aliasid) })).filter((a) => a.hostName !== '');
}

export function formatBusiness(ids: readonly string[]): string {
  return compactToString(section('business', ids.flatMap((id) => el('businessid', id))));
}

export function formatRoles(roles: ReadonlyArray<{ hostName: string; roleList: readonly string[] }>): string {
  return compactToString(section('roles', roles.map((r) => section('role', [...el('roleid', r.hostName), ...el('roleset', r.roleList.join(' '))]))));
}

export function formatAliases(aliases: ReadonlyArray<{ hostName: string; aliasList: readonly string[] }>): string {
  return compactToString(section('aliases', aliases.map((a) => section('alias', [...el('realid', a.hostName), ...el('aliasid', a.aliasList.join(' '))]))));
}
