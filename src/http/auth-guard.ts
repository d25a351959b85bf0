/**
 * Failed REST authentications (issue 21 item 3): each one is logged with the user and the address
 * (never the password), and after `restmaxauthfailures` failures an address, and separately a user
 * name, is locked out for `restlockout` ms: its requests are refused without their credentials
 * being checked, as the R66 side bans an address after a failed Authent (net/blacklist.ts).
 * Accepted timestamps (HMAC, v1 signatures) are checked here too, within the clock skew allowed.
 */
import type { Logger } from 'pino';
import { securityOf, type SecurityConfig } from '../config/index.js';
import { normaliseIp } from '../net/blacklist.js';
import { RateLimitedLog } from '../net/rate-log.js';
import type { RestListenerContext } from './context.js';

interface Failures {
  count: number;
  /** When the first counted failure happened: counts older than a lockout period are forgotten. */
  since: number;
  lockedUntil: number;
}

/** Entries kept at most per kind; beyond, the stalest go (a spray of addresses cannot grow memory). */
const MAX_ENTRIES = 10_000;

export class AuthGuard {
  private readonly byIp = new Map<string, Failures>();
  private readonly byUser = new Map<string, Failures>();
  private readonly lockedLog: RateLimitedLog;

  constructor(
    private readonly settings: Pick<SecurityConfig, 'restMaxAuthFailures' | 'restLockoutMs' | 'restClockSkewMs' | 'warnIntervalMs'>,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    /** Who is guarded, for the log lines: 'REST', or 'web administration' (the admin area's logins). */
    private readonly area: string = 'REST',
  ) {
    this.lockedLog = new RateLimitedLog(log, settings.warnIntervalMs, now);
  }

  /** True while the address or the user is locked out; the refusal is logged rate-limited. */
  isLocked(ip: string | undefined, user: string | undefined): boolean {
    const t = this.now();
    const key = ip === undefined ? undefined : normaliseIp(ip);
    const locked = (map: Map<string, Failures>, k: string | undefined): boolean => k !== undefined && (map.get(k)?.lockedUntil ?? 0) > t;
    if (!locked(this.byIp, key) && !locked(this.byUser, user)) return false;
    this.lockedLog.warn(`locked:${key ?? ''}:${user ?? ''}`, { user, ip: key }, `${this.area} request refused: address or user locked out after failed authentications`);
    return true;
  }

  /** A failed authentication: logged, counted for the address and the user. */
  failed(ip: string | undefined, user: string | undefined, reason: string): void {
    const key = ip === undefined ? undefined : normaliseIp(ip);
    this.log.warn({ user, ip: key, reason }, `${this.area} authentication failed`);
    if (key !== undefined && this.count(this.byIp, key)) this.log.warn({ ip: key, lockoutMs: this.settings.restLockoutMs }, `${this.area} address locked out after repeated failed authentications`);
    if (user !== undefined && user !== '' && this.count(this.byUser, user)) this.log.warn({ user, lockoutMs: this.settings.restLockoutMs }, `${this.area} user locked out after repeated failed authentications`);
  }

  /** A successful authentication clears the counts of its address and user. */
  succeeded(ip: string | undefined, user: string): void {
    if (ip !== undefined) this.byIp.delete(normaliseIp(ip));
    this.byUser.delete(user);
  }

  /** Counts one failure; true when it starts a lockout. */
  private count(map: Map<string, Failures>, key: string): boolean {
    const t = this.now();
    let f = map.get(key);
    if (f === undefined || (f.lockedUntil <= t && t - f.since > this.settings.restLockoutMs)) {
      f = { count: 0, since: t, lockedUntil: 0 };
      if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string);
    }
    map.delete(key);
    map.set(key, f);
    f.count++;
    if (f.count < this.settings.restMaxAuthFailures) return false;
    f.count = 0;
    f.since = t;
    f.lockedUntil = t + this.settings.restLockoutMs;
    return true;
  }

  /**
   * Whether a request timestamp is acceptable: within `timeLimit` (resttimelimit) of now in both
   * directions, or within `restclockskew` when resttimelimit is not positive. The original's v2
   * never expired a future timestamp and, with resttimelimit <= 0, refused the current time.
   */
  timestampAccepted(when: Date, now: Date, timeLimit: number): boolean {
    const window = timeLimit > 0 ? timeLimit : this.settings.restClockSkewMs;
    return Math.abs(now.getTime() - when.getTime()) <= window;
  }
}

/** The listener's guard, made on first use from the host's settings (server.xml `security`). */
export function guardOf(ctx: RestListenerContext): AuthGuard {
  ctx.guard ??= new AuthGuard(securityOf(ctx.services.config), ctx.services.log);
  return ctx.guard;
}
