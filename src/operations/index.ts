/**
 * Transfer orders (issue 20 item 2): the one service every entry point calls to create, send,
 * stop, cancel, restart or resubmit a transfer. See docs/decisions (one transfer pipeline) and
 * docs/transfers.md.
 *
 *   const orders = new TransferOrders({ store, hostId, sslHostId, directories, blockSize, live: engine });
 *   const row = await orders.submit({ partner: 'hostb', rule: 'send', file: 'a.txt' });
 *   await orders.stop({ specialId: row.specialId, requester: row.requester, requested: row.requested });
 */
export { FILE_DELETED_MARK, TransferOrders, asOrderError, type LiveTransfers, type OrderStore, type RowEdit, type TransferOrder, type TransferOrdersOptions } from './transfer-orders.js';
export { newTransferRecord, modeOf, throughVariant, hasFollow, type NewRecordInput } from '../transfer/new-record.js';
export { stopOrCancelStored, restartStored, workFileOf, type OrderResult } from './stored-orders.js';
export { engineWithOrders, ordersForEngine, storedOrdersOf } from './engine-orders.js';
export { partnerOrderHandlers, registerPartnerOrders, TRANSFER_ORDERS, type OrderAuthority, type PartnerOrdersDeps } from './partner-orders.js';
export { aliveWindowMs } from '../transfer/alive.js';
export { runningElsewhere, elsewhereRefusal } from './running-elsewhere.js';
export { resolveOrderFile, sendRoots, receiveRoots, policyRefusal, ANY_READABLE_FILE, remoteReadable } from './order-files.js';
