/**
 * Builds the REST listeners of a running server (one per `rest` section) and the services they
 * use from the runtime. Live operations without an engine yet (transfer control) stay undefined,
 * so REST updates the stored records as the original does for transfers not running here.
 */
import { memoryBandwidth, RestListener, type RestServices } from '../http/index.js';
import type { Component } from './component.js';
import type { ServerRuntime } from './runtime.js';

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
        // Out of the request that asked for it: a restart closes this very listener.
        setImmediate(() => runtime.requestShutdown(restart));
      },
      blockRequests: (block) => runtime.log.warn({ block }, 'request blocking asked through REST'),
    };
    return services;
  };
  return runtime.config.rest.map((rest) => new RestListener(get, rest));
}
