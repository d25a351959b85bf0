/** Change counters of a cluster sharing one database (table MULTIPLEMONITOR, database.md §3.6). */
export interface MultipleMonitor {
  hostId: string;
  countConfig: number;
  countHost: number;
  countRule: number;
}
