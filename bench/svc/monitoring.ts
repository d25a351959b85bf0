/**
 * `--monitoring`: the svc hosts run with every monitoring facility on (metrics scraped every
 * second, push monitoring every second to a receiver here, the SNMP agent with notifications at
 * level 4 to a UDP sink here), to compare the small-file figures with a run without it.
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './homes.js';

export interface MonitoringSinks {
  pushUrl: string;
  trapPort: number;
  /** Scrapes `http://127.0.0.1:<port>/metrics` every second from now on. */
  scrape(ports: number[]): void;
}

/** The receivers, unref'd: they never keep the bench process alive. */
export async function startMonitoringSinks(): Promise<MonitoringSinks> {
  const http = createServer((req, res) => { req.resume(); req.on('end', () => res.end('{}')); });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  http.unref();
  const traps = createSocket('udp4');
  await new Promise<void>((resolve) => traps.bind(0, '127.0.0.1', resolve));
  traps.on('message', () => undefined);
  traps.unref();
  return {
    pushUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    trapPort: traps.address().port,
    scrape(ports) {
      setInterval(() => { for (const p of ports) void fetch(`http://127.0.0.1:${p}/metrics`).then((r) => r.text(), () => undefined); }, 1000).unref();
    },
  };
}

/** The server.xml additions of one host (and its snmpconfig.xml, written in `confDir`). */
export async function monitoringXml(confDir: string, sinks: Pick<MonitoringSinks, 'pushUrl' | 'trapPort'>): Promise<{ root: string; server: string; metricsPort: number }> {
  const metricsPort = await freePort();
  const snmpFile = join(confDir, 'snmpconfig.xml');
  writeFileSync(snmpFile, `<snmpconfig><config><localaddress>udp:127.0.0.1/${await freePort()}</localaddress><trapinformlevel>4</trapinformlevel></config>
<targets><target><name>sink</name><domain>UdpIpv4</domain><address>127.0.0.1/${sinks.trapPort}</address><isv2>True</isv2></target></targets></snmpconfig>\n`);
  return {
    root: `<monitoring><metricsport>${metricsPort}</metricsport></monitoring><pushMonitor><url>${sinks.pushUrl}</url><endpoint>/push</endpoint><delay>1000</delay></pushMonitor>`,
    server: `<snmpconfig>${snmpFile}</snmpconfig>`,
    metricsPort,
  };
}
