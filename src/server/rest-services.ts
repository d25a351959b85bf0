/**
 * Builds the REST listeners of a running server (one per `rest` section) and the services they
 * use from the runtime. Live operations without an engine yet (transfer control) stay undefined,
 * so REST updates the stored records as the original does for transfers not running here.
 */
import { memoryBandwidth, RestListener, type RestServices } from '../http/index.js';
import type { Component } from './component.js';
import type { ServerRuntime } from './runtime.js';

/** A failed restart leaves nothing running: end the process through its ordered shutdown. */
export function restartOrExit(runtime: ServerRuntime): void {
  runtime.restart().catch((err: unknown) => {
    runtime.log.error({ err: err instanceof Error ? err.message : String(err) }, 'server restart failed; the process stops');
    process.kill(process.pid, 'SIGTERM');
  });
}

export function restListeners(runtime: ServerRuntime): Component[] {
  if (runtime.config.rest.length === 0) return [];
  const bandwidth = memoryBandwidth(runtime.config);
  const startedAt = new Date();
  let services: RestServices | undefined;
  const get = (): RestServices => {
    services ??= {
      config: runtime.config, store: runtime.store, log: runtime.log, bandwidth, startedAt, now: () => new Date(),
      fileMonitors: { list: () => [] },
      counters: { networkConnections: () => 0, inBandwidth: () => 0, outBandwidth: () => 0 },
      shutdown: (restart) => {
        runtime.log.warn({ restart }, 'shutdown requested through REST');
        if (!restart) {
          // The process's own shutdown handlers run the ordered stop (shutdown.ts).
          process.kill(process.pid, 'SIGTERM');
          return;
        }
        // Out of the request that asked for it: the restart closes this very listener.
        setImmediate(() => restartOrExit(runtime));
      },
      blockRequests: (block) => runtime.log.warn({ block }, 'request blocking asked through REST'),
    };
    return services;
  };
  return runtime.config.rest.map((rest) => new RestListener(get, rest));
}
