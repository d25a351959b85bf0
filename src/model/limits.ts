/**
 * Bandwidth limits of one server (table CONFIGURATION, database.md §3.4). Bytes per second,
 * 0 = unlimited; `delayLimit` is the check interval in ms. The columns are BIGINT but real values
 * stay far below 2^53, so numbers are used.
 */
export interface Limits {
  hostId: string;
  readGlobalLimit: number;
  writeGlobalLimit: number;
  readSessionLimit: number;
  writeSessionLimit: number;
  delayLimit: number;
  updatedInfo: number;
}
