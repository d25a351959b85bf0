/**
 * Per-server business white list, roles, aliases and "others" (table HOSTCONFIG, database.md §3.5,
 * §4.5). The four texts are raw XML (possibly empty); `others` holds the schema version.
 */
export interface HostConfig {
  hostId: string;
  business: string;
  roles: string;
  aliases: string;
  others: string;
  updatedInfo: number;
}
