/** `/v2/server/...` (rest-v2.md §10.11): status, deactivate, shutdown, restart, logs export, config export/import. */
import { z } from 'zod';
import { Role } from '../../config/index.js';
import type { UpdatedInfo } from '../../model/transfer.js';
import { CONFIG_ITEMS, ConfigTransferError, exportConfigV2, exportHistoryV2, importConfig, type ConfigItem, type ImportRequest } from '../../admin/index.js';
import { formatIsoLocal, parseIsoDate } from '../../model/iso-date.js';
import { notifyOrder } from '../../monitor/snmp/admin-order-warnings.js';
import { ERROR_COUNTERS, RUNNING_COUNTERS, statusSnapshot } from '../status.js';
import { TRANSFER_STATUS } from './converters.js';
import { ErrorList, V2BadRequest, V2Code, V2Status } from './errors.js';
import { logLevelControl } from '../log-level-control.js';
import { json, type V2Operation, type V2Request } from './route.js';
import { parseQuery, qBool, qEnum, qLong, qText } from './validate.js';

const DAY_MS = 86_400_000;

/** ISO 8601 duration without years or months (`P1DT0H0M0S`, `PT1H`); undefined when invalid. */
export function parseDuration(text: string): number | undefined {
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (m === null || text === 'P' || text.endsWith('T')) return undefined;
  const [, w = '0', d = '0', h = '0', mi = '0', s = '0'] = m;
  return (((Number(w) * 7 + Number(d)) * 24 + Number(h)) * 60 + Number(mi)) * 60_000 + Number(s) * 1000;
}

async function status(req: V2Request) {
  let period = DAY_MS;
  if (req.query.period !== undefined) {
    const p = parseDuration(req.query.period);
    if (p === undefined) throw V2BadRequest.of(V2Code.IllegalParameterValue, `'${req.query.period}'`, 'period');
    period = p;
  }
  const s = await statusSnapshot(req.ctx.services, period);
  const lastRun = req.state.lastStatusRun;
  req.state.lastStatusRun = s.date;
  const iso = (d: Date | null) => (d === null ? null : formatIsoLocal(d));
  return json(200, {
    serverName: req.ctx.services.config.hostId, date: iso(s.date), lastRun: iso(lastRun), fromDate: iso(s.fromDate),
    secondsRunning: s.secondsRunning, networkConnections: s.networkConnections, nbThreads: 1, inBandwidth: s.inBandwidth, outBandwidth: s.outBandwidth,
    overall: {
      allTransfers: s.all, unknown: s.byStatus[0], notUpdated: s.byStatus[1], interrupted: s.byStatus[2], toSubmit: s.byStatus[3],
      inError: s.byStatus[4], running: s.byStatus[5], done: s.byStatus[6], runningIn: s.runningIn, runningOut: s.runningOut,
      lastRunningIn: iso(s.lastRunningIn), lastRunningOut: iso(s.lastRunningOut), allIn: s.allIn, allOut: s.allOut, errorsIn: s.errorsIn, errorsOut: s.errorsOut,
    },
    globalSteps: { noTask: s.bySteps[0], preTask: s.bySteps[1], transferTask: s.bySteps[2], postTask: s.bySteps[3], allDoneTask: s.bySteps[4], errorTask: s.bySteps[5] },
    runningSteps: { allRunning: s.byStatus[5], ...Object.fromEntries(RUNNING_COUNTERS.map(([k, , c]) => [k, s.runningByStatus.get(c) ?? 0])) },
    errors: Object.fromEntries(ERROR_COUNTERS.map(([k, , code]) => [k, s.byError.get(code) ?? 0])),
  });
}

async function deactivate(req: V2Request) {
  const { store, config } = req.ctx.services;
  const host = await store.hosts.get(config.hostId);
  if (host === undefined) throw new V2Status(404);
  const active = !host.isActive;
  await store.hosts.upsert({ ...host, isActive: active });
  return { status: 204, headers: { active: String(active) } };
}

const logsQuery = z.object({
  purge: qBool.describe('delete every exported record'), clean: qBool.describe('mark finished exported records DONE'),
  status: qEnum(TRANSFER_STATUS).describe('status equals'), ruleName: qText.describe('rule equals'),
  start: qText.describe('start date >= (ISO 8601)'), stop: qText.describe('start date <= (ISO 8601)'),
  startID: qLong.describe('id >='), stopID: qLong.describe('id <='),
  requester: qText.describe('requester equals'), requested: qText.describe('alias of requester (docs spelling)'),
});

async function logs(req: V2Request) {
  const errors = new ErrorList();
  const q = parseQuery(logsQuery, req.query, errors);
  const date = (name: 'start' | 'stop'): Date | undefined => {
    const text = q[name];
    if (text === undefined) return undefined;
    const d = parseIsoDate(text);
    if (d === undefined) errors.add(V2Code.IllegalParameterValue, `'${text}'`, name);
    return d;
  };
  const start = date('start');
  const stop = date('stop');
  errors.throwIfAny();
  const { services } = req.ctx;
  const r = await exportHistoryV2({ store: services.store, hostId: services.config.hostId, archiveDir: services.config.directories.arch, now: services.now }, {
    status: q.status !== undefined ? (TRANSFER_STATUS.indexOf(q.status) as UpdatedInfo) : undefined,
    rule: q.ruleName, start, stop, startId: q.startID, stopId: q.stopID, requester: q.requester ?? q.requested, purge: q.purge, clean: q.clean,
  });
  if (q.purge === true) notifyOrder(services.notify, 'purge', req.user);
  return json(200, { filePath: r.file, exported: r.exported, purged: r.purged });
}

const exportQuery = z.object({
  exportHosts: qBool, exportRules: qBool, exportBusiness: qBool, exportAliases: qBool, exportRoles: qBool,
});
const EXPORT_KEYS: Record<ConfigItem, [query: keyof z.output<typeof exportQuery>, answer: string]> = {
  hosts: ['exportHosts', 'fileHost'], rules: ['exportRules', 'fileRule'], business: ['exportBusiness', 'fileBusiness'],
  aliases: ['exportAliases', 'fileAlias'], roles: ['exportRoles', 'fileRoles'],
};

function filesContext(req: V2Request) {
  const { services } = req.ctx;
  return { store: services.store, hostId: services.config.hostId, cryptoKey: services.config.identity.cryptoKey, tasks: services.tasks };
}

function mapTransferError(err: unknown, parameter: string): never {
  if (err instanceof ConfigTransferError) {
    if (err.kind === 'no-host-config') throw new V2Status(404);
    if (err.kind === 'file-not-found') throw V2BadRequest.of(V2Code.FileNotFound, parameter);
    // A good file the database cannot take as asked: the reason, nothing changed.
    if (err.kind === 'refused') throw V2BadRequest.of(V2Code.IllegalFieldValue, JSON.stringify(err.message), 'rulesFile');
    // Outside the host's directories: the same answer whether or not the file exists.
    if (err.kind === 'not-allowed' || (err.kind === 'invalid' && err.file !== undefined)) throw V2BadRequest.of(V2Code.IllegalFieldValue, JSON.stringify(err.file), 'file');
    throw V2BadRequest.of(V2Code.IllegalParameterValue, `'${parameter}'`, 'file');
  }
  throw err;
}

async function configExport(req: V2Request) {
  const errors = new ErrorList();
  const q = parseQuery(exportQuery, req.query, errors);
  errors.throwIfAny();
  const items = new Set((Object.keys(EXPORT_KEYS) as ConfigItem[]).filter((i) => q[EXPORT_KEYS[i][0]] === true));
  let files;
  try {
    files = await exportConfigV2(filesContext(req), req.ctx.services.config.directories.conf, items);
    notifyOrder(req.ctx.services.notify, 'export', req.user);
  } catch (err) {
    mapTransferError(err, 'export');
  }
  return json(200, Object.fromEntries(Object.entries(files).map(([item, file]) => [EXPORT_KEYS[item as ConfigItem][1], file])));
}

const importQuery = z.object({
  purgeHosts: qBool, purgeRules: qBool, purgeBusiness: qBool, purgeAliases: qBool, purgeRoles: qBool,
  hostsFile: qText, rulesFile: qText, businessFile: qText, aliasesFile: qText, rolesFile: qText,
});
const IMPORT_KEYS: Record<ConfigItem, [purge: 'purgeHosts' | 'purgeRules' | 'purgeBusiness' | 'purgeAliases' | 'purgeRoles',
  file: 'hostsFile' | 'rulesFile' | 'businessFile' | 'aliasesFile' | 'rolesFile', answer: string]> = {
  hosts: ['purgeHosts', 'hostsFile', 'purgedHost'], rules: ['purgeRules', 'rulesFile', 'purgedRule'],
  business: ['purgeBusiness', 'businessFile', 'purgedBusiness'], aliases: ['purgeAliases', 'aliasesFile', 'purgedAlias'],
  roles: ['purgeRoles', 'rolesFile', 'purgedRoles'],
};

async function configImport(req: V2Request) {
  const errors = new ErrorList();
  const q = parseQuery(importQuery, req.query, errors);
  errors.throwIfAny();
  const request: ImportRequest = {};
  for (const item of Object.keys(IMPORT_KEYS) as ConfigItem[]) {
    const [purgeKey, fileKey] = IMPORT_KEYS[item];
    const file = q[fileKey];
    // Hosts and rules load when a file is given (defect V13); the three texts only with their purge flag.
    if (file === undefined || file === '') continue;
    if ((item === 'hosts' || item === 'rules') || q[purgeKey] === true) request[item] = { file, purge: q[purgeKey] === true };
  }
  let result;
  try {
    result = await importConfig(filesContext(req), request, req.ctx.services.config.directories);
    notifyOrder(req.ctx.services.notify, 'import', req.user);
  } catch (err) {
    mapTransferError(err, 'import');
  }
  const answer: Record<string, unknown> = Object.fromEntries(CONFIG_ITEMS.filter((item) => result[item] !== undefined).map((item) => [IMPORT_KEYS[item][2], 'true']));
  // svc extension: rules a purge kept because the history still names them (docs/rest.md).
  if (result.keptRules !== undefined) answer.keptRules = result.keptRules;
  return json(200, answer);
}

const logLevelQuery = z.object({
  level: qText.describe('TRACE, DEBUG, INFO, WARN, ERROR or OFF'), logger: qText.describe('a logger (component) of the logback file; default the root'),
});

async function changeLogLevel(req: V2Request) {
  const { level = '', logger } = req.query;
  try {
    return json(200, logLevelControl().set(level, logger));
  } catch {
    throw V2BadRequest.of(V2Code.IllegalParameterValue, `'${level}'`, 'level');
  }
}

const form = 'application/x-www-form-urlencoded' as const;
const command = (path: string, summary: string, restart: boolean | null): V2Operation => ({
  method: 'PUT', path, fn: 'Server', role: Role.FULLADMIN, consumes: '*/*', summary, responses: { 204: { description: 'done' } },
  handler: async (req) => (restart === null ? deactivate(req) : { status: 204, after: () => req.ctx.services.shutdown(restart) }),
});

export const serverOperations: V2Operation[] = [
  { method: 'GET', path: '/v2/server/status', fn: 'Information', role: Role.READONLY, consumes: '*/*', summary: 'Server status',
    query: z.object({ period: qText.describe('ISO 8601 duration (default P1DT0H0M0S)') }), responses: { 200: { description: 'status' } }, handler: status },
  command('/v2/server/deactivate', 'Toggle this server\'s active flag', null),
  command('/v2/server/shutdown', 'Shut the server down', false),
  command('/v2/server/restart', 'Restart the server', true),
  command('/v2/server/reboot', 'Restart the server (documented name)', true),
  { method: 'GET', path: '/v2/server/logs', fn: 'Log', role: Role.LOGCONTROL, consumes: form, summary: 'Export (and purge) the transfer history',
    query: logsQuery, responses: { 200: { description: '{filePath, exported, purged}' } }, handler: logs },
  { method: 'GET', path: '/v2/server/config', fn: 'Config', role: Role.CONFIGADMIN, consumes: form, summary: 'Export the configuration',
    query: exportQuery, responses: { 200: { description: 'paths of the files written' }, 404: { description: 'no host configuration' } }, handler: configExport },
  { method: 'PUT', path: '/v2/server/config', fn: 'Config', role: Role.CONFIGADMIN, consumes: form, summary: 'Import the configuration',
    query: importQuery, responses: { 200: { description: 'items imported' } }, handler: configImport },
  // svc extension (docs/logging.md): the log levels in force, changed without a restart.
  { method: 'GET', path: '/v2/server/loglevel', fn: 'Log', role: Role.LOGCONTROL, consumes: '*/*', summary: 'Log levels in force (root and per logger)',
    responses: { 200: { description: '{root, loggers}' } }, handler: async () => json(200, logLevelControl().levels()) },
  { method: 'PUT', path: '/v2/server/loglevel', fn: 'Log', role: Role.LOGCONTROL, consumes: '*/*', summary: 'Change a log level at run time',
    query: logLevelQuery, responses: { 200: { description: '{root, loggers} after the change' } }, handler: changeLogLevel },
];
