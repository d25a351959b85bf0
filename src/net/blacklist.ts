/**
 * Addresses refused at accept time after a failed authentication (r66-protocol.md §1.4, §6.5):
 * the original bans the peer IP for 5 x timeoutcon (150 s by default) and, while banned, closes
 * every new connection from it at once without sending anything.
 */
import { envFlag } from '../config/env-flag.js';

/** Settings of the ban; `enabled` false when this host is proxified (config.md §11). */
export interface BlacklistOptions {
  enabled: boolean;
  durationMs: number;
  /** Clock, replaceable in tests. */
  now?: () => number;
}

/** The original's default duration for a given timeoutcon. */
export function defaultBlacklistDurationMs(timeoutConMs: number): number {
  return 5 * timeoutConMs;
}

/** A bad value of one of the environment settings below; the message names the variable. */
export class BlacklistSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlacklistSettingError';
  }
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  return envFlag(env, name, (message) => new BlacklistSettingError(message));
}

/** `SVC_R66_ISHOSTPROXYFIED` (like `-Dopenr66.ishostproxyfied`), else `fallback`. */
export function hostProxifiedFrom(env: NodeJS.ProcessEnv, fallback = false): boolean {
  return flag(env, 'SVC_R66_ISHOSTPROXYFIED') ?? fallback;
}

/**
 * The ban settings of a host (config.md §11), from the environment, as the original's JVM properties:
 * - `SVC_R66_BLACKLIST_BADAUTHENT` = 1/0, like `-Dopenr66.blacklist.badauthent` (default 1, or 0
 *   when this host is proxified);
 * - `SVC_R66_ISHOSTPROXYFIED` = 1/0, like `-Dopenr66.ishostproxyfied` (default 0): this host is
 *   behind a proxy, so the ban is off unless asked for explicitly;
 * - `SVC_R66_BLACKLIST_DURATION_MS` = how long a ban lasts (default 5 x timeoutcon; ours).
 */
export function blacklistOptionsFrom(env: NodeJS.ProcessEnv, timeoutConMs: number, proxified = false): BlacklistOptions {
  const enabled = flag(env, 'SVC_R66_BLACKLIST_BADAUTHENT') ?? !hostProxifiedFrom(env, proxified);
  const rawDuration = env.SVC_R66_BLACKLIST_DURATION_MS?.trim();
  let durationMs = defaultBlacklistDurationMs(timeoutConMs);
  if (rawDuration !== undefined && rawDuration !== '') {
    if (!/^\d{1,12}$/.test(rawDuration)) {
      throw new BlacklistSettingError(`SVC_R66_BLACKLIST_DURATION_MS must be a number of milliseconds, not ${JSON.stringify(rawDuration)}`);
    }
    durationMs = Number(rawDuration);
  }
  return { enabled: enabled && durationMs > 0, durationMs };
}

export class Blacklist {
  private readonly until = new Map<string, number>();
  private readonly now: () => number;
  private enabled: boolean;

  constructor(private readonly options: BlacklistOptions) {
    this.now = options.now ?? Date.now;
    this.enabled = options.enabled;
  }

  /** Stops banning (the original does so once a partner announces PROXIFIED=true). */
  disable(): void {
    this.enabled = false;
    this.until.clear();
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  /** Records a failed authentication from `ip`. */
  ban(ip: string | undefined): void {
    if (!this.enabled || ip === undefined) return;
    this.until.set(normaliseIp(ip), this.now() + this.options.durationMs);
  }

  /** True while `ip` is banned; expired entries are forgotten on the way. */
  isBanned(ip: string | undefined): boolean {
    if (!this.enabled || ip === undefined) return false;
    const key = normaliseIp(ip);
    const end = this.until.get(key);
    if (end === undefined) return false;
    if (end <= this.now()) {
      this.until.delete(key);
      return false;
    }
    return true;
  }
}

/** `::ffff:1.2.3.4` and `1.2.3.4` are the same peer. */
export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}
