/**
 * Temporary aliases of the one domain error (src/model/r66-error.ts, decision 0049) for the files
 * not converted yet; removed once nothing imports them.
 */
import type { R66ErrorDetails } from './r66-error.js';

export { R66Error as TransferError, httpStatusOf } from './r66-error.js';
export type TransferErrorDetails = R66ErrorDetails;
