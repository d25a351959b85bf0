/** v1 `GET /server` (rest-v1.md §12.6): the status snapshot with the original's v1 key names. */
import { formatIsoLocal } from '../../model/iso-date.js';
import type { RestListenerContext } from '../context.js';
import type { JsonValue } from '../json.js';
import { ERROR_COUNTERS, RUNNING_COUNTERS, statusSnapshot } from '../status.js';
import type { ActionResult } from './actions.js';

const DAY_MS = 86_400_000;

export async function serverStatusAction(ctx: RestListenerContext): Promise<ActionResult> {
  const s = await statusSnapshot(ctx.services, DAY_MS);
  const iso = (d: Date | null): JsonValue => (d === null ? null : formatIsoLocal(d));
  const status: Record<string, JsonValue> = {
    HostID: ctx.services.config.hostId, Date: iso(s.date), LastRun: iso(s.fromDate), FromDate: iso(s.fromDate),
    SecondsRunning: s.secondsRunning, NetworkConnections: s.networkConnections, NbThreads: 1, InBandwidth: s.inBandwidth, OutBandwidth: s.outBandwidth,
    OVERALL: {
      AllTransfer: s.all, Unknown: s.byStatus[0], NotUpdated: s.byStatus[1], Interrupted: s.byStatus[2], ToSubmit: s.byStatus[3], Error: s.byStatus[4],
      Running: s.byStatus[5], Done: s.byStatus[6], InRunning: s.runningIn, OutRunning: s.runningOut, LastInRunning: iso(s.lastRunningIn),
      LastOutRunning: iso(s.lastRunningOut), InAll: s.allIn, OutAll: s.allOut, InError: s.errorsIn, OutError: s.errorsOut,
    },
    STEPS: { Notask: s.bySteps[0], Pretask: s.bySteps[1], Transfer: s.bySteps[2], Posttask: s.bySteps[3], AllDone: s.bySteps[4], Error: s.bySteps[5] },
    RUNNINGSTEPS: { AllRunning: s.byStatus[5], ...Object.fromEntries(RUNNING_COUNTERS.map(([, k, c]) => [k, s.runningByStatus.get(c) ?? 0])) },
    ERRORTYPES: Object.fromEntries(ERROR_COUNTERS.map(([, k, code]) => [k, s.byError.get(code) ?? 0])),
  };
  return { code: 200, command: 'GetStatus', model: 'Server', results: [status], detail: `${s.all} transfers in the last day` };
}
