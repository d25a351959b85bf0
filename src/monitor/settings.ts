/**
 * svc-r66's own monitoring settings (not in the original): the `<monitoring>` element under the
 * root of server.xml, read apart from server-config.ts so the original's loader stays as it is.
 *
 *   <monitoring>
 *     <metricsport>9464</metricsport>          0 or absent: no metrics/health HTTP listener
 *     <metricsaddress>127.0.0.1</metricsaddress>
 *     <metricspath>/metrics</metricspath>
 *     <healthpath>/health</healthpath>
 *     <pushleader>auto</pushleader>            auto | always | never (push monitoring in a cluster)
 *     <monitorheaders>svc</monitorheaders>     svc | waarp (names of the push headers and key)
 *     <pushinsecure>false</pushinsecure>       true: do not verify an https collector's certificate
 *     <searchservice>auto</searchservice>      auto (GET /) | elasticsearch-8 | opensearch-2 ... (push with <index>)
 *   </monitoring>
 *
 * `SVC_MONITORING=off` in the environment turns every monitoring facility off (push, SNMP,
 * metrics): the bench uses it to measure their cost on the data path.
 */
import { ConfigError } from '../config/errors.js';
import { SectionReader } from '../config/values.js';
import { readXmlFile } from '../config/xml-read.js';
import { parseSearchService, type SearchService } from './push/search-service.js';

export type PushLeaderMode = 'auto' | 'always' | 'never';

export interface MonitoringSettings {
  /** False when `SVC_MONITORING=off`. */
  enabled: boolean;
  /** 0 = no metrics/health listener. */
  metricsPort: number;
  metricsAddress: string;
  metricsPath: string;
  healthPath: string;
  pushLeader: PushLeaderMode;
  /** `waarp`: X-WAARP-* headers and the `waarpMonitor` key as the original; `svc`: rebranded. */
  brand: 'svc' | 'waarp';
  /** Accept any certificate from an https push receiver (the original's REST behaviour). */
  pushInsecure: boolean;
  /** The search service pushed to, when configured; undefined: read with GET / (`auto`). */
  searchService: SearchService | undefined;
}

export const DEFAULT_MONITORING: MonitoringSettings = {
  enabled: true, metricsPort: 0, metricsAddress: '127.0.0.1', metricsPath: '/metrics', healthPath: '/health', pushLeader: 'auto', brand: 'waarp', pushInsecure: false, searchService: undefined,
};

function path(sec: SectionReader, name: string, fallback: string): string {
  const v = sec.nonEmpty(name) ?? fallback;
  if (!/^\/[\w\-./]*$/.test(v)) throw sec.error(name, `expected a URL path starting with / (got "${v}")`);
  return v;
}

function oneOf<T extends string>(sec: SectionReader, name: string, allowed: readonly T[], fallback: T): T {
  const v = sec.nonEmpty(name);
  if (v === undefined) return fallback;
  const lower = v.toLowerCase() as T;
  if (!allowed.includes(lower)) throw sec.error(name, `expected one of ${allowed.join(', ')} (got "${v}")`);
  return lower;
}

function searchService(sec: SectionReader): SearchService | undefined {
  const v = sec.nonEmpty('searchservice');
  if (v === undefined) return undefined;
  const parsed = parseSearchService(v);
  if (parsed instanceof Error) throw sec.error('searchservice', parsed.message);
  return parsed;
}

/** Reads `<monitoring>` of server.xml (defaults when absent) and the environment switches. */
export async function loadMonitoringSettings(serverXml: string, env: NodeJS.ProcessEnv = process.env): Promise<MonitoringSettings> {
  const doc = await readXmlFile(serverXml, ['config']);
  const sec = new SectionReader(serverXml, doc.root, 'config').section('monitoring');
  const settings: MonitoringSettings = {
    enabled: !/^(off|false|0|no)$/i.test(env.SVC_MONITORING ?? ''),
    metricsPort: sec.port('metricsport', 0),
    metricsAddress: sec.nonEmpty('metricsaddress') ?? DEFAULT_MONITORING.metricsAddress,
    metricsPath: path(sec, 'metricspath', DEFAULT_MONITORING.metricsPath),
    healthPath: path(sec, 'healthpath', DEFAULT_MONITORING.healthPath),
    pushLeader: oneOf(sec, 'pushleader', ['auto', 'always', 'never'], 'auto'),
    brand: oneOf(sec, 'monitorheaders', ['svc', 'waarp'], 'waarp'),
    pushInsecure: sec.boolean('pushinsecure', false),
    searchService: searchService(sec),
  };
  if (env.SVC_METRICS_PORT !== undefined && env.SVC_METRICS_PORT !== '') {
    const port = Number(env.SVC_METRICS_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`SVC_METRICS_PORT: expected a port 0..65535 (got "${env.SVC_METRICS_PORT}")`);
    settings.metricsPort = port;
  }
  if (settings.metricsPath === settings.healthPath) throw sec.error('healthpath', 'must differ from <metricspath>');
  return settings;
}
