/**
 * Components a running server adds after the database and its identity check, in start order
 * (they stop in reverse). One line each, e.g. `new R66Listener(runtime)`. Kept apart from
 * runtime.ts so adding a listener, HTTP or the scheduler does not touch the composition logic.
 */
import { R66Network } from '../net/network.js';
import type { Component } from './component.js';
import { restListeners } from './rest-services.js';
import type { ServerRuntime } from './runtime.js';

export function extraComponents(runtime: ServerRuntime): Component[] {
  return [
    new R66Network(runtime.config, () => ({ findHost: (id) => runtime.store.hosts.get(id), findRule: (id) => runtime.store.rules.get(id) }), runtime.log),
    ...restListeners(runtime),
  ];
}
