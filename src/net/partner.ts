/**
 * Who is on the other side, and who we are: the small interfaces the connection layer needs from
 * the configuration and the database, so that it can be built and tested without them.
 */
import type { DigestAlgorithm } from '../model/digest.js';
import type { Host } from '../model/host.js';
import type { PartnerCapabilities } from '../protocol/index.js';

/** A partner entry with its password already decrypted (never logged). */
export interface PartnerEntry {
  host: Host;
  /** Plain password bytes; null when the entry has no key (any key is then accepted, §6.1). */
  password: Buffer | null;
}

/** Lookup of partner entries by host id (authent.xml or the HOSTS table). */
export interface PartnerDirectory {
  find(hostId: string): Promise<PartnerEntry | undefined>;
  /** The entry's host alone, its key not decrypted (absent: find()'s host). */
  host?(hostId: string): Promise<Host | undefined>;
}

/** What this host announces and how it authenticates (its own entries are in the directory too). */
export interface LocalIdentity {
  /** Host id on plain connections. */
  hostId: string;
  /** Host id on TLS connections (undefined: no TLS identity). */
  sslHostId?: string;
  /** Configured digest (`limit/digest`), announced in DIGESTALGO. */
  digest: DigestAlgorithm;
  /** `globaldigest` setting, announced as FINALHASH. */
  globalDigest: boolean;
  /** `compression` setting. */
  compression: boolean;
  /** This host is behind a proxy: no address check, no blacklisting. */
  proxified: boolean;
}

/** The partner a channel (or a connection, with reuse) is authenticated with. */
export interface AuthenticatedPartner {
  /** The host id it authenticated with (its SSL host id on TLS). */
  hostId: string;
  host: Host;
  /** The version string it announced (`3.1.0.{json}`), null when absent. */
  version: string | null;
  /** What it announced (digest, FINALHASH, JSON use, authentication reuse...). */
  capabilities: PartnerCapabilities;
}

/** The host id this host uses on a connection of the given kind. */
export function ownHostId(identity: LocalIdentity, isTls: boolean): string {
  if (!isTls) return identity.hostId;
  if (identity.sslHostId === undefined) throw new Error('no SSL host id (identity/sslhostid) is configured for a TLS connection');
  return identity.sslHostId;
}

/** A PartnerDirectory over fixed entries (tests, no-database clients built from authent.xml). */
export class MemoryPartnerDirectory implements PartnerDirectory {
  private readonly entries = new Map<string, PartnerEntry>();
  constructor(entries: Iterable<PartnerEntry> = []) {
    for (const e of entries) this.entries.set(e.host.hostId, e);
  }
  set(entry: PartnerEntry): void {
    this.entries.set(entry.host.hostId, entry);
  }
  async find(hostId: string): Promise<PartnerEntry | undefined> {
    return this.entries.get(hostId);
  }
  async host(hostId: string): Promise<Host | undefined> {
    return this.entries.get(hostId)?.host;
  }
}

/**
 * A PartnerDirectory over a host lookup (the store's `hosts` repository) and a password decryptor
 * (config's DES decryption with the cryptokey). The stored key is the ASCII of the encrypted hex.
 */
export function partnerDirectoryFrom(
  findHost: (hostId: string) => Promise<Host | undefined>,
  decryptHex: (hex: string) => Buffer,
): PartnerDirectory {
  // The same stored key decrypts to the same password: DES once per key text, not once per
  // transfer (a channel to a partner looks it up each time). A changed key is a new entry.
  const clear = new Map<string, Buffer>();
  const decrypt = (hex: string): Buffer => {
    let password = clear.get(hex);
    if (password === undefined) {
      password = decryptHex(hex);
      if (clear.size >= DECRYPTED_KEYS_KEPT) clear.clear();
      clear.set(hex, password);
    }
    return Buffer.from(password);
  };
  return {
    async find(hostId) {
      const host = await findHost(hostId);
      if (host === undefined) return undefined;
      const hex = host.hostKey === null ? '' : host.hostKey.toString('latin1').trim();
      return { host, password: hex.length === 0 ? null : decrypt(hex) };
    },
    host: findHost,
  };
}

/** Decrypted partner keys kept by a directory (one per partner in practice). */
const DECRYPTED_KEYS_KEPT = 1024;
