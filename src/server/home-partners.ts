/**
 * Makes two homes partners of each other in one step (`svc-r66server partner -home A -with B`):
 * each side's partner file gets an entry for the other, whose key is the other host's own password
 * encrypted with THIS side's cryptokey (the original's authent.xml holds every key encrypted with
 * the local cryptokey, config.md §5, §10), and both files are loaded into their databases.
 *
 * Both homes must be readable by the caller (two homes on one machine, or a shared file system);
 * for hosts on different machines docs/quickstart.md shows the same steps by hand.
 */
import type { Logger } from 'pino';
import { decryptPasswordHex, encryptPasswordHex, loadAuthentFile, loadServerConfig, writeAuthentFile, type ServerConfig } from '../config/index.js';
import type { Host } from '../model/host.js';
import { runDatabaseTool } from './database-tool.js';

/** One home: its server.xml and its partner file. */
export interface HomeFiles {
  serverXml: string;
  authentFile: string;
}

/** What was done, one line per side, for the command's report. */
export interface PairReport {
  lines: string[];
  /** The host id of the second home (the partner of the first). */
  partnerOfA: string;
}

/** A refusal the operator can fix (same host id on both sides, own entry missing...). */
export class PairError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PairError';
  }
}

interface Side {
  files: HomeFiles;
  config: ServerConfig;
  hosts: Host[];
  /** This host's own password, in clear (never printed). */
  password: string;
  address: string;
}

async function readSide(files: HomeFiles, address: string): Promise<Side> {
  const config = await loadServerConfig(files.serverXml);
  if (!config.server.useNoSsl) throw new PairError(`${files.serverXml}: usenossl is false; partner pairs plain R66 listeners (add the TLS entries by hand, docs/tls.md)`);
  const { hosts } = await loadAuthentFile(files.authentFile, config.identity.cryptoKey);
  const own = hosts.find((h) => h.hostId === config.hostId);
  if (own === undefined || own.hostKey === null) {
    throw new PairError(`${files.authentFile}: no entry with a key for the host itself (${config.hostId}); expected the file written by init or start`);
  }
  const password = decryptPasswordHex(config.identity.cryptoKey, own.hostKey.toString('ascii'));
  return { files, config, hosts, password, address };
}

/** `other` as a partner entry of `self`: its password encrypted with self's cryptokey. */
function entryFor(self: Side, other: Side): Host {
  return {
    hostId: other.config.hostId, address: other.address, port: other.config.network.serverPort, isSsl: false,
    hostKey: Buffer.from(encryptPasswordHex(self.config.identity.cryptoKey, other.password), 'ascii'),
    adminRole: false, isClient: false, isActive: true, isProxified: false, updatedInfo: 0,
  };
}

async function addPartner(self: Side, other: Side, log: Logger): Promise<void> {
  const entry = entryFor(self, other);
  const hosts = [...self.hosts.filter((h) => h.hostId !== entry.hostId), entry];
  await writeAuthentFile(self.files.authentFile, hosts);
  // loadauth: the running server (if any) reads partners from its database at each connection.
  await runDatabaseTool({ configFile: self.files.serverXml, side: 'server', authFile: self.files.authentFile, log });
}

/**
 * Pairs two homes. `addressA` is how B reaches A, `addressB` how A reaches B (127.0.0.1 for two
 * homes on one machine).
 */
export async function pairHomes(a: HomeFiles, b: HomeFiles, log: Logger, addressA = '127.0.0.1', addressB = '127.0.0.1'): Promise<PairReport> {
  const sideA = await readSide(a, addressA);
  const sideB = await readSide(b, addressB);
  if (sideA.config.hostId === sideB.config.hostId) {
    throw new PairError(`both homes have the host id ${sideA.config.hostId}: a host cannot be its own partner; create the second home with svc-r66server init -home DIR -hostid NAME -port N`);
  }
  if (sideA.address === sideB.address && sideA.config.network.serverPort === sideB.config.network.serverPort) {
    throw new PairError(`both homes listen on port ${sideA.config.network.serverPort} at ${sideA.address}; give one of them another <network/serverport>`);
  }
  await addPartner(sideA, sideB, log);
  await addPartner(sideB, sideA, log);
  const line = (s: Side, o: Side) => `${s.config.hostId} knows ${o.config.hostId} at ${o.address}:${o.config.network.serverPort} (${s.files.authentFile}, loaded into its database)`;
  return { lines: [line(sideA, sideB), line(sideB, sideA)], partnerOfA: sideB.config.hostId };
}
