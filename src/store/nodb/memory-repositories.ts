import type { Host } from '../../model/host.js';
import type { HostConfig } from '../../model/host-config.js';
import type { Limits } from '../../model/limits.js';
import type { MultipleMonitor } from '../../model/multiple-monitor.js';
import type { Rule } from '../../model/rule.js';
import type { UpdatedInfo } from '../../model/transfer.js';
import { StoreError } from '../errors.js';
import type {
  HostConfigRepository, HostFilter, HostRepository, LimitsRepository, MultipleMonitorRepository, RuleFilter, RuleRepository,
} from '../repository-types.js';

// In-memory tables for the no-database mode (database.md §11): partners and rules come from the
// configuration files at start and changes last until the process ends, as in the original.

/** SQL LIKE (`%`, `_`) as a RegExp, case-sensitive like the databases' default collation for ids. */
export function likeToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.');
  return new RegExp(`^${body}$`, 's');
}

/** A keyed table of copies (callers never share an object with the store). */
class MemoryTable<T> {
  private readonly rows = new Map<string, T>();
  constructor(private readonly what: string, private readonly key: (row: T) => string, private readonly copy: (row: T) => T = structuredClone) {}

  get(id: string): T | undefined {
    const row = this.rows.get(id);
    return row === undefined ? undefined : this.copy(row);
  }
  list(keep: (row: T) => boolean = () => true): T[] {
    return [...this.rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r).filter(keep).map((r) => this.copy(r));
  }
  insert(row: T): void {
    if (this.rows.has(this.key(row))) throw new StoreError(`${this.what} ${this.key(row)} already exists`);
    this.rows.set(this.key(row), this.copy(row));
  }
  upsert(row: T): void {
    this.rows.set(this.key(row), this.copy(row));
  }
  delete(id: string): boolean {
    return this.rows.delete(id);
  }
  patch(id: string, change: Partial<T>): boolean {
    const row = this.rows.get(id);
    if (row === undefined) return false;
    this.rows.set(id, { ...row, ...change });
    return true;
  }
}

export class MemoryHostRepository implements HostRepository {
  // structuredClone would turn the Buffer into a plain Uint8Array.
  private readonly table = new MemoryTable<Host>('host', (h) => h.hostId, (h) => ({ ...h, hostKey: h.hostKey ? Buffer.from(h.hostKey) : null }));
  constructor(initial: readonly Host[] = []) {
    for (const h of initial) this.table.upsert(h);
  }
  async get(hostId: string) { return this.table.get(hostId); }
  async list(f: HostFilter = {}) {
    const like = f.hostIdLike === undefined ? undefined : likeToRegExp(f.hostIdLike);
    return this.table.list((h) => (!like || like.test(h.hostId)) && (f.address === undefined || h.address === f.address)
      && (f.isSsl === undefined || h.isSsl === f.isSsl) && (f.isActive === undefined || h.isActive === f.isActive)
      && (f.updatedInfo === undefined || h.updatedInfo === f.updatedInfo));
  }
  async insert(host: Host) { this.table.insert(host); }
  async upsert(host: Host) { this.table.upsert(host); }
  async upsertMany(hosts: readonly Host[]) { for (const h of hosts) this.table.upsert(h); }
  async delete(hostId: string) { return this.table.delete(hostId); }
  async setUpdatedInfo(hostId: string, updatedInfo: UpdatedInfo) { return this.table.patch(hostId, { updatedInfo }); }
}

export class MemoryRuleRepository implements RuleRepository {
  private readonly table = new MemoryTable<Rule>('rule', (r) => r.idRule);
  /** `inUse` tells whether transfers reference a rule (checked before a delete). */
  constructor(initial: readonly Rule[], private readonly inUse: (idRule: string) => Promise<boolean>) {
    for (const r of initial) this.table.upsert(r);
  }
  async get(idRule: string) { return this.table.get(idRule); }
  async list(f: RuleFilter = {}) {
    const like = f.idRuleLike === undefined ? undefined : likeToRegExp(f.idRuleLike);
    return this.table.list((r) => (!like || like.test(r.idRule)) && (f.mode === undefined || r.mode === f.mode)
      && (f.updatedInfo === undefined || r.updatedInfo === f.updatedInfo));
  }
  async insert(rule: Rule) { this.table.insert(rule); }
  async upsert(rule: Rule) { this.table.upsert(rule); }
  async delete(idRule: string) {
    if (await this.inUse(idRule)) throw new StoreError(`rule ${idRule} cannot be deleted: transfers still use it`);
    return this.table.delete(idRule);
  }
  async setUpdatedInfo(idRule: string, updatedInfo: UpdatedInfo) { return this.table.patch(idRule, { updatedInfo }); }
}

/** A per-server table keyed by host id with an UPDATEDINFO column (HOSTCONFIG, CONFIGURATION). */
class MemoryPerHostRepository<T extends { hostId: string; updatedInfo: number }> {
  private readonly table: MemoryTable<T>;
  constructor(what: string, initial: readonly T[]) {
    this.table = new MemoryTable<T>(what, (r) => r.hostId);
    for (const r of initial) this.table.upsert(r);
  }
  async get(hostId: string) { return this.table.get(hostId); }
  async list() { return this.table.list(); }
  async upsert(row: T) { this.table.upsert(row); }
  async delete(hostId: string) { return this.table.delete(hostId); }
  async setUpdatedInfo(hostId: string, updatedInfo: UpdatedInfo) { return this.table.patch(hostId, { updatedInfo } as Partial<T>); }
}

export class MemoryHostConfigRepository extends MemoryPerHostRepository<HostConfig> implements HostConfigRepository {
  constructor(initial: readonly HostConfig[] = []) {
    super('host configuration', initial);
  }
}

export class MemoryLimitsRepository extends MemoryPerHostRepository<Limits> implements LimitsRepository {
  constructor(initial: readonly Limits[] = []) {
    super('limits', initial);
  }
}

export class MemoryMultipleMonitorRepository implements MultipleMonitorRepository {
  private readonly table = new MemoryTable<MultipleMonitor>('monitor', (m) => m.hostId);
  async get(hostId: string) { return this.table.get(hostId); }
  async getForUpdate(hostId: string) { return this.table.get(hostId); }
  async insertIfAbsent(monitor: MultipleMonitor) {
    if (this.table.get(monitor.hostId) !== undefined) return false;
    this.table.insert(monitor);
    return true;
  }
  async upsert(monitor: MultipleMonitor) { this.table.upsert(monitor); }
  async delete(hostId: string) { return this.table.delete(hostId); }
}
