/**
 * Sessions of the administration area (web-ui.md §2.1): kept in memory, keyed by the cookie value
 * `<host id><random hex>` of cookie `R66SESSION<host id>`; each carries the user, its role mask and
 * the CSRF token every form posts back. Sessions expire after an idle time and have a bounded count
 * (the oldest goes first). The login guard refuses a source address or a user after repeated
 * failures for a while, as the REST side does for its lockout.
 */
import { randomBytes } from 'node:crypto';

export interface Session {
  id: string;
  user: string;
  role: number;
  csrf: string;
  expires: number;
  /** Last listing filter (action Reload). */
  lastFilter?: Record<string, string>;
}

export interface SessionOptions {
  idleMs?: number;
  maxSessions?: number;
  now?: () => number;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly idleMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(readonly hostId: string, opts: SessionOptions = {}) {
    this.idleMs = opts.idleMs ?? 30 * 60_000;
    this.maxSessions = opts.maxSessions ?? 1000;
    this.now = opts.now ?? Date.now;
  }

  get cookieName(): string {
    return `R66SESSION${this.hostId}`;
  }

  create(user: string, role: number): Session {
    if (this.sessions.size >= this.maxSessions) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    const s: Session = { id: `${this.hostId}${randomBytes(16).toString('hex')}`, user, role, csrf: randomBytes(16).toString('hex'), expires: this.now() + this.idleMs };
    this.sessions.set(s.id, s);
    return s;
  }

  /** The live session of this cookie value (its idle time restarts), or undefined. */
  get(id: string | undefined): Session | undefined {
    if (id === undefined) return undefined;
    const s = this.sessions.get(id);
    if (s === undefined) return undefined;
    if (s.expires <= this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    s.expires = this.now() + this.idleMs;
    // Re-inserted so the map stays in last-use order for eviction.
    this.sessions.delete(id);
    this.sessions.set(id, s);
    return s;
  }

  destroy(id: string): void {
    this.sessions.delete(id);
  }

  get size(): number {
    return this.sessions.size;
  }
}

export interface GuardOptions {
  maxFailures?: number;
  windowMs?: number;
  lockMs?: number;
  now?: () => number;
}

/** Failed logins per key (source address, user): locked for `lockMs` after `maxFailures` within `windowMs`. */
export class LoginGuard {
  private readonly failures = new Map<string, { count: number; first: number; lockedUntil: number }>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly lockMs: number;
  private readonly now: () => number;

  constructor(opts: GuardOptions = {}) {
    this.maxFailures = opts.maxFailures ?? 5;
    this.windowMs = opts.windowMs ?? 15 * 60_000;
    this.lockMs = opts.lockMs ?? 15 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  locked(...keys: string[]): boolean {
    const now = this.now();
    return keys.some((k) => (this.failures.get(k)?.lockedUntil ?? 0) > now);
  }

  fail(...keys: string[]): void {
    const now = this.now();
    // Bounded: an attacker rotating names cannot grow the table past a few thousand entries.
    if (this.failures.size > 5000) for (const [k, v] of this.failures) if (v.lockedUntil <= now && now - v.first > this.windowMs) this.failures.delete(k);
    for (const k of keys) {
      let f = this.failures.get(k);
      if (f === undefined || now - f.first > this.windowMs) f = { count: 0, first: now, lockedUntil: 0 };
      f.count++;
      if (f.count >= this.maxFailures) f.lockedUntil = now + this.lockMs;
      this.failures.set(k, f);
    }
  }

  succeed(...keys: string[]): void {
    for (const k of keys) this.failures.delete(k);
  }
}
