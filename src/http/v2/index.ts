// REST v2 (rest-v2.md): the route table, its dispatcher and its OpenAPI document.
import { fileMonitorOperations } from './filemonitors.js';
import { hostConfigOperations } from './hostconfig.js';
import { hostOperations } from './hosts.js';
import { limitOperations } from './limits.js';
import type { V2Operation } from './route.js';
import { ruleOperations } from './rules.js';
import { serverOperations } from './server.js';
import { transferOperations } from './transfers.js';

export const V2_OPERATIONS: readonly V2Operation[] = [
  ...transferOperations, ...hostOperations, ...ruleOperations, ...hostConfigOperations, ...limitOperations, ...serverOperations, ...fileMonitorOperations,
];
export { V2Dispatcher } from './dispatch.js';
export { openApiDocument } from './openapi.js';
