/**
 * `--monitoring[=metrics,push,snmp]`: the svc hosts run with these monitoring facilities on
 * (metrics scraped every second, push monitoring every second to a receiver here, the SNMP agent
 * with notifications at level 4 to a UDP sink here), to compare the small-file figures with a run
 * without it (`--compare-monitoring` does both in one run).
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MonitoringFacility } from '../lib/types.js';
import { freePort } from './homes.js';

const SCRAPE_EVERY_MS = 1000;

export interface MonitoringSinks {
  facilities: readonly MonitoringFacility[];
  pushUrl: string;
  trapPort: number;
  /**
   * Scrapes `http://127.0.0.1:<port>/metrics` every second while `scraping(true)`: while this
   * pair of hosts is measured. With --compare-monitoring the other pair runs meanwhile, and the
   * scrapes of an idle pair would be charged to it.
   */
  scrapeWhileMeasured(ports: number[]): void;
  scraping(on: boolean): void;
}

/** The receivers, unref'd: they never keep the bench process alive. */
export async function startMonitoringSinks(facilities: readonly MonitoringFacility[]): Promise<MonitoringSinks> {
  const http = createServer((req, res) => { req.resume(); req.on('end', () => res.end('{}')); });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  http.unref();
  const traps = createSocket('udp4');
  await new Promise<void>((resolve) => traps.bind(0, '127.0.0.1', resolve));
  traps.on('message', () => undefined);
  traps.unref();
  let targets: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  return {
    facilities,
    pushUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    trapPort: traps.address().port,
    scrapeWhileMeasured(ports) {
      targets = facilities.includes('metrics') ? ports : [];
    },
    scraping(on) {
      clearInterval(timer);
      timer = undefined;
      if (!on || targets.length === 0) return;
      timer = setInterval(() => { for (const p of targets) void fetch(`http://127.0.0.1:${p}/metrics`).then((r) => r.text(), () => undefined); }, SCRAPE_EVERY_MS);
      timer.unref();
    },
  };
}

/** The server.xml additions of one host (and its snmpconfig.xml, written in `confDir`), for the chosen facilities. */
export async function monitoringXml(confDir: string, sinks: Pick<MonitoringSinks, 'facilities' | 'pushUrl' | 'trapPort'>): Promise<{ root: string; server: string; metricsPort: number | undefined }> {
  const on = (f: MonitoringFacility): boolean => sinks.facilities.includes(f);
  const metricsPort = on('metrics') ? await freePort() : undefined;
  let server = '';
  if (on('snmp')) {
    const snmpFile = join(confDir, 'snmpconfig.xml');
    writeFileSync(snmpFile, `<snmpconfig><config><localaddress>udp:127.0.0.1/${await freePort()}</localaddress><trapinformlevel>4</trapinformlevel></config>
<targets><target><name>sink</name><domain>UdpIpv4</domain><address>127.0.0.1/${sinks.trapPort}</address><isv2>True</isv2></target></targets></snmpconfig>\n`);
    server = `<snmpconfig>${snmpFile}</snmpconfig>`;
  }
  const metrics = metricsPort === undefined ? '' : `<monitoring><metricsport>${metricsPort}</metricsport></monitoring>`;
  const push = on('push') ? `<pushMonitor><url>${sinks.pushUrl}</url><endpoint>/push</endpoint><delay>1000</delay></pushMonitor>` : '';
  return { root: metrics + push, server, metricsPort };
}
