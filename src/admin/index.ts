// The administration feature (design.md §2, issue 20 item 6): history export/purge and
// configuration export/import (spec history.md), below the HTTP, R66 and CLI layers so REST v1,
// REST v2, the R66 export orders (`svc-r66client log-export`/`config-export`) and the web UI share
// one implementation, confined to the host's directories.
export { exportHistoryV1, exportHistoryV2, type HistoryContext, type LogExportRequest, type LogExportResult, type LogExportV2Request } from './history.js';
export {
  CONFIG_ITEMS, ConfigTransferError, exportConfigV1, exportConfigV2, importConfig,
  type ConfigFilesContext, type ConfigItem, type ExportedFiles, type ImportRequest, type ImportResult, type ImportSource,
} from './config-files.js';
export { adminExportSource, ownIdsOf, roleOfPartner } from './r66-exports.js';
export { fileReceivedFrom, importForOrder, type ImportItemOrder, type ImportOrderContext } from './r66-imports.js';
