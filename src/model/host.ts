/**
 * A partner host as the original keeps it (table HOSTS, authent.xml `entry`).
 * `hostKey` is the ASCII of the lower-case hex of the DES-encrypted password (database.md §4.1),
 * or null when the partner needs no password.
 */
export interface Host {
  hostId: string;
  address: string;
  port: number;
  isSsl: boolean;
  hostKey: Buffer | null;
  adminRole: boolean;
  isClient: boolean;
  isActive: boolean;
  isProxified: boolean;
  updatedInfo: number;
}

/** The address that means "no address / client only". */
export const NO_ADDRESS = '0.0.0.0';
