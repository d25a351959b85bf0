// History export/purge and configuration export/import (spec history.md), below the HTTP and CLI
// layers so REST v1, REST v2 and `svc-r66client log-export`/`config-export` share one implementation.
export { exportHistoryV1, exportHistoryV2, type HistoryContext, type LogExportRequest, type LogExportResult, type LogExportV2Request } from './logs.js';
export {
  CONFIG_ITEMS, ConfigTransferError, exportConfigV1, exportConfigV2, importConfig,
  type ConfigFilesContext, type ConfigItem, type ExportedFiles, type ImportRequest, type ImportResult, type ImportSource,
} from './config-files.js';
export { formatIsoLocal, parseIsoDate } from './iso-date.js';
