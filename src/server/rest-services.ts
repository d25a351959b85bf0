/**
 * Builds the REST listeners of a running server (one per `rest` section) and the services they
 * use from the runtime: the running transfer engine (transfer orders act on running transfers,
 * bandwidth changes reach the shaper, request blocking), the business registry and its FileWatcher
 * reports. The engine is looked up at each call: it exists from the transfers component's start
 * (before any REST listener starts) to its stop (after every REST listener stopped).
 */
import { RestListener, type BandwidthControl, type LiveLimits, type RestServices, type TransferControl } from '../http/index.js';
import { aliveWindowMs, remoteReadable, TransferOrders } from '../operations/index.js';
import type { TaskRegistry } from '../tasks/index.js';
import type { TransferEngine } from '../transfer/index.js';
import type { TransferService } from './transfer-service.js';
import type { BusinessRegistry } from './business.js';
import type { Component } from './component.js';
import type { ServerRuntime } from './runtime.js';

export interface RestLiveParts {
  transfers: TransferService;
  /** R66 connections open now (the network component's count); the running transfers without it. */
  openConnections?: () => number;
  business: BusinessRegistry;
  /** The registry the engine runs tasks with (built-ins and plug-ins): REST rule requests are checked against it. */
  tasks: TaskRegistry;
}

/** `get`: the services the web areas and the R66 admin orders share (one bandwidth control, one engine). */
export function restListeners(runtime: ServerRuntime, live: RestLiveParts, get: () => RestServices = liveRestServices(runtime, live)): Component[] {
  if (runtime.config.rest.length === 0) return [];
  return runtime.config.rest.map((rest) => new RestListener(get, rest));
}

/** The services REST (and the web areas) use, built at first use, from the running engine. */
export function liveRestServices(runtime: ServerRuntime, live: RestLiveParts): () => RestServices {
  const engine = (): TransferEngine => live.transfers.engine;
  const startedAt = new Date();
  let services: RestServices | undefined;
  const transfers = engineControl(engine);
  const get = (): RestServices => {
    services ??= {
      config: runtime.config, store: runtime.store, log: runtime.log, notify: runtime.notifications.notify, bandwidth: engineBandwidth(engine, runtime.config.limits.delayLimit), startedAt, now: () => new Date(),
      transfers,
      // REST and the web pages give remote orders: files to send confined to the served directories.
      orders: new TransferOrders({
        store: runtime.store, hostId: runtime.config.hostId, sslHostId: runtime.config.sslHostId, directories: runtime.config.directories,
        blockSize: runtime.config.limits.blockSize, extraServed: remoteReadable(runtime.config.directories), live: () => transfers, now: () => new Date(),
        aliveWindowMs: aliveWindowMs(runtime.config.limits.timeoutCon),
      }),
      business: live.business,
      fileMonitors: live.business,
      tasks: live.tasks,
      // The shaper counts every data block of every transfer (bandwidth.md §6.2).
      counters: { networkConnections: () => live.openConnections?.() ?? engine().runningCount, activeChannels: () => engine().runningCount, inBandwidth: () => engine().bandwidth.throughput().read, outBandwidth: () => engine().bandwidth.throughput().write },
      shutdown: (restart) => {
        runtime.log.warn({ restart }, 'shutdown requested through REST');
        // Out of the request that asked for it: a restart closes this very listener.
        setImmediate(() => runtime.requestShutdown(restart));
      },
      blockRequests: (block) => {
        runtime.log.warn({ block }, 'request blocking asked through REST');
        engine().blockRequests(block);
      },
    };
    return services;
  };
  return get;
}

/** Transfer orders through the running engine (stop and cancel return once the transfer ended). */
function engineControl(engine: () => TransferEngine): TransferControl {
  return {
    stop: (ref) => engine().stop(ref),
    cancel: (ref) => engine().cancel(ref),
    restart: (ref, at) => engine().restart(ref, at),
    isRunning: (ref) => engine().isRunning(ref),
    get requestsBlocked() {
      return engine().requestsBlocked;
    },
  };
}

/** REST's live limits are the engine's shaper (bandwidth.md §4): global at once, session for new transfers. */
function engineBandwidth(engine: () => TransferEngine, initialDelay: number): BandwidthControl {
  let delay = initialDelay;
  return {
    get: (): LiveLimits => ({ ...engine().bandwidth.current, delay }),
    set: (l: LiveLimits) => {
      delay = l.delay;
      engine().bandwidth.set({ writeGlobal: l.writeGlobal, readGlobal: l.readGlobal, writeSession: l.writeSession, readSession: l.readSession }, l.delay > 0 ? l.delay : undefined);
    },
  };
}
