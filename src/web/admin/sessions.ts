/**
 * Sessions of the administration area (web-ui.md §2.1): kept in memory, keyed by the cookie value
 * `<host id><random hex>` of cookie `R66SESSION<host id>`; each carries the user, its role mask and
 * the CSRF token every form posts back. Sessions expire after an idle time and have a bounded count
 * (the oldest goes first). Failed logins are counted by the REST side's lockout (http/auth-guard.ts).
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
