/**
 * A piece of a running host that the lifecycle starts and stops in order (database, listeners,
 * scheduler, HTTP...). Adding one to a running host is one `lifecycle.add(...)` line.
 */
export interface Component {
  /** Short name for logs and error messages (`database`, `r66-listener`). */
  readonly name: string;
  start(): Promise<void>;
  /** Must be safe to call once after a successful start; should release every resource. */
  stop(): Promise<void>;
  /** What it offers once started, for the start-up banner (`R66 listening on 0.0.0.0:6666`). */
  describe?(): string[];
}
