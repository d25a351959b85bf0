// A fresh instance for each test of a suite that runs the real CLI (svc-r66server / svc-r66client):
// shared by the tests that start a server from an instance directory and check what it did.
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { sandbox, writeInstance, type Instance, type Running, type Sandbox } from '../cli/cli-helpers.js';

export interface InstanceEach {
  /** The scratch area of the current test. */
  box: Sandbox;
  /** The instance `hosta` (writeInstance) under `<box>/conf`. */
  inst: Instance;
  /** The sandbox's environment with the configuration root `<box>/conf` (INSTANCES_CONF). */
  env: NodeJS.ProcessEnv;
  /** Registers a CLI process: killed (SIGKILL) after the test if it still runs. */
  track(process: Running): Running;
}

/**
 * Registers, in the calling suite, a beforeEach that makes a new sandbox with the instance `hosta`
 * and an afterEach that kills the tracked processes still running and removes the sandbox. The
 * returned object holds the current test's values.
 */
export function instanceForEachTest(): InstanceEach {
  const running: Running[] = [];
  const current = {
    track: (process: Running): Running => {
      running.push(process);
      return process;
    },
  } as InstanceEach;
  beforeEach(() => {
    const box = sandbox();
    current.box = box;
    current.inst = writeInstance(join(box.dir, 'conf', 'hosta'));
    current.env = { ...box.env, INSTANCES_CONF: join(box.dir, 'conf') };
  });
  afterEach(() => {
    for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    current.box.cleanup();
  });
  return current;
}
