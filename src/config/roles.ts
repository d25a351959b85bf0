// Role sets of `roles/role/roleset` (config.md §3.10) and the partner's effective role.
import { Role, type RoleEntry } from './types.js';
import { splitWords } from './values.js';

const BASE_ROLES: ReadonlyArray<[string, number]> = [
  ['READONLY', Role.READONLY], ['TRANSFER', Role.TRANSFER], ['RULE', Role.RULE], ['HOST', Role.HOST],
  ['LIMIT', Role.LIMIT], ['SYSTEM', Role.SYSTEM], ['LOGCONTROL', Role.LOGCONTROL],
];

/**
 * Combines role names separated by whitespace or `|` (a comma list is one unknown name: trap
 * T4). Case-insensitive; unknown names ignored; NOACCESS resets what came before it.
 */
export function parseRoleSet(text: string): number {
  let mask = 0;
  for (const word of splitWords(text)) {
    const name = word.toUpperCase();
    if (name === 'NOACCESS') mask = 0;
    else if (name !== 'UNUSED' && name in Role) mask |= Role[name as keyof typeof Role];
  }
  return mask;
}

/** Upper-case base names separated by spaces, composites expanded (`NOACCESS` for 0). */
export function formatRoleSet(mask: number): string {
  const names = BASE_ROLES.filter(([, bit]) => (mask & bit) === bit).map(([n]) => n);
  return names.length === 0 ? 'NOACCESS' : names.join(' ');
}

/**
 * The refusal of an order the caller's roles do not allow: the original's words (code `A`,
 * r66-protocol.md §9.11), then the cause, so that the operator on the other side knows what to grant.
 */
export function missingRoleMessage(hostId: string, role: number): string {
  return `Not correctly authenticated: partner ${hostId} lacks the role ${formatRoleSet(role)} here (server.xml <roles>, or admin in its partner entry)`;
}

/** True when `mask` contains every bit of `role`. */
export function hasRole(mask: number, role: number): boolean {
  return (mask & role) === role;
}

/**
 * The effective role of an authenticated partner: without any role entry, admin partners are
 * FULLADMIN and others PARTNER; with entries, the partner's own entry (PARTNER when none), and
 * FULLADMIN when the partner is admin or its set contains FULLADMIN.
 */
export function effectiveRole(entries: readonly RoleEntry[], hostId: string, isAdmin: boolean): number {
  if (entries.length === 0) return isAdmin ? Role.FULLADMIN : Role.PARTNER;
  const entry = entries.find((e) => e.hostId === hostId);
  const mask = entry?.roles ?? Role.PARTNER;
  return isAdmin || hasRole(mask, Role.FULLADMIN) ? Role.FULLADMIN : mask;
}
