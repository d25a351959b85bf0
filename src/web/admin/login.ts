/**
 * Who may log in to the administration area (web-ui.md §2.1): the server administrator of
 * server.xml (all roles), or a client-only partner (negative port) with its password, whose
 * rights are FULLADMIN with the admin flag, else its role set in the `roles` configuration or the
 * host configuration's roles, else none. Answers only yes (with the role) or no.
 */
import { Role, parseRoleSet, type ServerConfig } from '../../config/index.js';
import { passwordMatches, safeEqual } from '../../http/credentials.js';
import { parseRoles } from '../../config/hostconfig-xml.js';
import type { Store } from '../../store/index.js';

export interface LoginResult {
  user: string;
  role: number;
}

export async function checkLogin(config: ServerConfig, store: Store, name: string, password: string): Promise<LoginResult | undefined> {
  const admin = config.server;
  if (admin.adminName !== '' && safeEqual(name, admin.adminName)) {
    return admin.adminPassword !== '' && safeEqual(password, admin.adminPassword) ? { user: name, role: Role.FULLADMIN } : undefined;
  }
  const host = await store.hosts.get(name);
  if (host === undefined || host.port >= 0 || !passwordMatches(host, config.identity.cryptoKey, password)) return undefined;
  if (host.adminRole) return { user: name, role: Role.FULLADMIN };
  let role = config.roles.find((e) => e.hostId === name)?.roles ?? 0;
  const hc = await store.hostConfigs.get(config.hostId);
  for (const entry of parseRoles(hc?.roles ?? '')) if (entry.hostName === name) role |= parseRoleSet(entry.roleList.join(' '));
  return { user: name, role };
}
