/** Cluster members for the bench and the multi-process tests: hosta's home turned into N members on PostgreSQL. */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, type Home } from '../svc/homes.js';

/** A copy of hosta's configuration for member k: same home directories, own ports. */
export async function memberHome(a: Home, k: number): Promise<Home> {
  if (k === 1) return a;
  const confDir = `${a.confDir}-m${k}`;
  cpSync(a.confDir, confDir, { recursive: true, filter: (src) => !src.startsWith(join(a.confDir, 'data')) });
  const ports = { port: await freePort(), sslPort: await freePort() };
  const xml = readFileSync(join(confDir, 'server.xml'), 'utf8')
    .replace(`<serverport>${a.ports.port}</serverport>`, `<serverport>${ports.port}</serverport>`)
    .replace(`<serversslport>${a.ports.sslPort}</serversslport>`, `<serversslport>${ports.sslPort}</serversslport>`);
  writeFileSync(join(confDir, 'server.xml'), xml);
  return { ...a, confDir, ports };
}

/** Points a server.xml or client.xml at `jdbc` (PostgreSQL) and, for a server, sets multiplemonitors (and clustertakeover). */
export function onPostgres(file: string, jdbc: string, members: number, takeoverMs?: number): void {
  let xml = readFileSync(file, 'utf8').replace(/<db>.*?<\/db>/s, `<db><dbdriver>postgresql</dbdriver><dbserver>${jdbc}</dbserver><dbuser>root</dbuser><dbpasswd>unused</dbpasswd></db>`);
  if (xml.includes('<server>')) xml = xml.replace('<server>', `<server><multiplemonitors>${members}</multiplemonitors>${takeoverMs !== undefined ? `<clustertakeover>${takeoverMs}</clustertakeover>` : ''}`);
  writeFileSync(file, xml);
}
