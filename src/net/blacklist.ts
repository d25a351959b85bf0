/**
 * Addresses refused at accept time after a failed authentication (r66-protocol.md §1.4, §6.5):
 * the original bans the peer IP for 5 x timeoutcon (150 s by default) and, while banned, closes
 * every new connection from it at once without sending anything.
 */

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
function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}
