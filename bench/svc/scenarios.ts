/** Placeholder while the svc scenarios are wired. */
import type { ScenarioName } from '../lib/args.js';
import { notRun, type ScenarioContext } from '../lib/scenario.js';
import type { ScenarioResult } from '../lib/types.js';

export interface SvcSuite {
  run(name: ScenarioName, ctx: ScenarioContext): Promise<ScenarioResult>;
  close(): Promise<void>;
}

export const SVC_SCENARIOS = {
  async open(_ctx: ScenarioContext): Promise<SvcSuite> {
    return { run: async (name) => notRun(name, 'skipped', 'not wired yet'), close: async () => undefined };
  },
};
