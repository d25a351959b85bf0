/**
 * The transfer engine (design.md §2): one state machine per transfer for the four roles
 * (requester/requested x sender/receiver), data pump, digests, compression, placement, resume,
 * stop/cancel/restart, bandwidth shaping, and the scheduler of submitted transfers.
 *
 * Use:
 *   const engine = engineWithOrders({ identity, directories, limits, store, pool, handlers, tasks, logger });  // src/operations
 *   const outcome = await engine.submitSend({ partner: 'hostb', rule: 'send', file: '/data/a.txt' });
 *   // outcome.code === ErrorCode.CompleteOk, outcome.record is the final RUNNER row
 *   const id = await engine.submitLater({ ... , start });   // asend: TOSUBMIT row for the scheduler
 *   await engine.stop({ specialId, requester, requested });
 *   runtime.add(new TransferScheduler(engine));
 */
export type {
  AttemptSignals, BandwidthLimits, ControlResult, EngineOrders, RuleSource, StoredOrders, TransferEngineEvents, TransferEngineOptions, TransferOutcome, TransferProgress, TransferRef,
  TransferRequest,
} from './types.js';
export { TransferEngine, type PreparedTransfer } from './engine.js';
export { TransferScheduler, type TransferSchedulerOptions } from './scheduler.js';
export { BandwidthShaper, TokenBucket, combineLimits, normaliseLimits } from './shaper.js';
export { stopOrCancelCommand } from './control.js';
