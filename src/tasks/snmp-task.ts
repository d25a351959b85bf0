/**
 * SNMP task (tasks.md §8, monitoring.md §B.7): `delay` 0 sends a warning notification (text,
 * `TransferId:<id>`; level >= 3), 1 an info-task notification with the transfer's fields (no
 * level filter), anything else nothing. The argument goes through substitution pipeline A.
 * Always succeeds; without a running SNMP agent it only logs that nothing was sent. The agent's
 * notifier is the `snmp` hook a server hands down (context.ts), never an import of monitoring.
 */
import { pipelineA } from './substitution.js';
import { success, type TaskImplementation, type TaskResult } from './task.js';

export const snmpTask: TaskImplementation = {
  async run({ argument, delay, ctx }): Promise<TaskResult> {
    const text = pipelineA(argument, ctx).text;
    const notifier = ctx.engine.snmp?.();
    if (notifier === undefined) {
      ctx.logger.warn(`SNMP task: SNMP is not configured (server/snmpconfig), nothing sent: ${text}`);
      return success();
    }
    const transfer = ctx.transfer;
    if (delay === 0) await notifier.notify('warning', text, `TransferId:${transfer?.specialId ?? ''}`);
    else if (delay === 1 && transfer !== null) await notifier.infoTask(text, { ...transfer, retrieveMode: ctx.session.isSender }, true);
    return success();
  },
};
