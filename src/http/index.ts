// Public API of the HTTP module (design.md §2): REST v1 and v2 listeners and their services.
export { createRestApp, OPENAPI_PATH } from './app.js';
export { RestListener } from './listener.js';
export {
  memoryBandwidth, normaliseLimits, type BandwidthControl, type FileMonitorReport, type FileMonitorSource, type LiveLimits,
  type RestListenerContext, type RestServices, type RuntimeCounters, type TransferControl, type ControlResult, type BusinessRunner, type TransferRef,
} from './context.js';
export { V2_OPERATIONS, openApiDocument } from './v2/index.js';
