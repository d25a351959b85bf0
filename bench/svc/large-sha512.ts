/**
 * `large-sha512` (issue 37 item 2): the `large` scenario, `svc-r66client send` of the large file,
 * between two hosts configured with SHA-512 (server.xml `limit/digest` 7, whole-file digest on),
 * whatever `--digest` says for the other svc scenarios. Judged against `sha512`, SHA-512 alone over
 * the same file in the same run (raw/hash-scenario.ts).
 *
 * Its own pair of hosts, in its own folder, set up for each run and stopped after it: the hosts of
 * the other svc scenarios keep their digest. No small-file warm-up: a 1 GiB transfer runs its data
 * path 16,384 times, and its functions are optimized within its first fraction of a second.
 */
import { join } from 'node:path';
import { DESCRIPTIONS, type ScenarioContext } from '../lib/scenario.js';
import type { ScenarioResult } from '../lib/types.js';
import { SVC_SCENARIOS } from './scenarios.js';

export async function largeSha512(ctx: ScenarioContext): Promise<ScenarioResult> {
  const own: ScenarioContext = { ...ctx, workDir: join(ctx.workDir, 'large-sha512'), opts: { ...ctx.opts, digest: 'SHA512', warmup: 0 } };
  const suite = await SVC_SCENARIOS.open(own, []);
  try {
    const result = await suite.run('large', own);
    return { ...result, name: 'large-sha512', description: DESCRIPTIONS['large-sha512'] };
  } finally {
    await suite.close();
  }
}
