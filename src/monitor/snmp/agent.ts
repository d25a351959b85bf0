/**
 * The SNMP agent of a running host (monitoring.md Part B) on net-snmp: answers GET, GETNEXT and
 * GETBULK on the system group and the private MIB with live values, community `public` for
 * v1/v2c and the SNMPv3 users of snmpconfig.xml; sends the notifications (start, stop, transfer
 * errors, info-task) through SnmpNotifier, which it attaches to its NotificationHub (hub.ts): the
 * server's, through which the SNMP task and other modules reach it.
 */
import type { Socket as UdpSocket } from 'node:dgram';
import snmp, { type Agent, type Mib, type MibRequest, type RequestMessage, type User } from 'net-snmp';
import type { Logger } from 'pino';
import type { SnmpConfig, SnmpSecurity } from '../../config/index.js';
import { PRODUCT_VERSION } from '../../model/product.js';
import { UpdatedInfo, type TransferRecord } from '../../model/transfer.js';
import type { Store } from '../../store/index.js';
import type { TransferEngine } from '../../transfer/engine.js';
import type { TransferOutcome, TransferProgress } from '../../transfer/types.js';
import { countTransfers, PRIVATE_OBJECTS, SYSTEM_OBJECTS, type MibObject, type MibValues, type SystemNames, type TransferCounts, type ValueKind } from './mib.js';
import { NotificationHub } from './hub.js';
import { SnmpNotifier, TrapLevel } from './notifier.js';
import { MemoryWatch, memoryWarnRatio } from './memory-watch.js';

export interface SnmpServiceDeps {
  hostId: string;
  /** R66 port shown in applApplicationProtocol. */
  port: number;
  store: () => Store;
  engine: () => TransferEngine | undefined;
  connections: () => number;
  /** `minimaldelay`: the transfer counts are read again at most this often. */
  minimalDelayMs: number;
  logger: Logger;
  names?: Partial<SystemNames>;
  /** The server's hub its notifier is attached to; default one of its own. */
  hub?: NotificationHub;
}

export const DEFAULT_NAMES: SystemNames = {
  sysDescr: 'svc R66 SNMP', sysContact: 'svc-r66 operator', sysName: `svc R66 ${PRODUCT_VERSION}`, sysLocation: 'Paris, France',
  applName: 'svc R66', applDescription: 'svc R66: File Transfer Monitor', applUrl: 'https://github.com/svc-r66',
};

const TYPES: Record<ValueKind, number> = {
  string: snmp.ObjectType.OctetString, oid: snmp.ObjectType.OID, ticks: snmp.ObjectType.TimeTicks,
  integer: snmp.ObjectType.Integer, gauge: snmp.ObjectType.Gauge, counter: snmp.ObjectType.Counter,
};

const AUTH = { SHA: snmp.AuthProtocols.sha, MD5: snmp.AuthProtocols.md5 } as const;
// net-snmp has no 3DES nor AES-192: users asking for them are refused with a warning.
const PRIV: Partial<Record<NonNullable<SnmpSecurity['privProtocol']>, number>> = { PDES: snmp.PrivProtocols.des, PAES128: snmp.PrivProtocols.aes, PAES256: snmp.PrivProtocols.aes256b };

/** A snmpconfig.xml user as net-snmp wants it; undefined (with a reason) when it cannot be served. */
export function snmpUser(s: SnmpSecurity): User | string {
  const auth = s.authProtocol !== undefined && s.authPassphrase !== undefined ? AUTH[s.authProtocol] : undefined;
  const wantsPriv = s.privProtocol !== undefined && s.privPassphrase !== undefined;
  if (wantsPriv && PRIV[s.privProtocol!] === undefined) return `privacy protocol ${s.privProtocol} is not supported (use PDES, PAES128 or PAES256)`;
  if (wantsPriv && auth === undefined) return 'privacy needs an authentication protocol and passphrase';
  if (auth === undefined) return { name: s.name, level: snmp.SecurityLevel.noAuthNoPriv };
  const base = { name: s.name, authProtocol: auth, authKey: s.authPassphrase! };
  return wantsPriv ? { ...base, level: snmp.SecurityLevel.authPriv, privProtocol: PRIV[s.privProtocol!]!, privKey: s.privPassphrase! } : { ...base, level: snmp.SecurityLevel.authNoPriv };
}

/**
 * The view of SNMPv3 users without privacy (monitoring.md §B.3, the original's snmpconfig.xml
 * security levels): the subtree `1.3.6.1.2` (here the system group), not the private MIB. Users
 * with privacy, and the v1/v2c community `public`, see the whole tree.
 */
export const RESTRICTED_VIEW = '1.3.6.1.2';

const inView = (oid: string, view: string): boolean => oid === view || oid.startsWith(`${view}.`);

/** A MIB with no object: what a v3 request from a user of no view (the empty user name) sees. */
const EMPTY: Mib = snmp.createMib();

const REQUEST_METHODS = ['getRequest', 'getNextRequest', 'getBulkRequest', 'setRequest'] as const;
type RequestMethod = (socket: unknown, message: RequestMessage, rinfo: unknown) => void;

/**
 * View-based access (VACM's views) on net-snmp, whose own access control has levels per user but no
 * views: each request is answered from the MIB of the requester's view, swapped in (the agent's
 * `setMib`) for the synchronous part of the request where net-snmp looks objects up (GET: lookup,
 * GETNEXT/GETBULK: the walk), and the full MIB put back at once. An object outside the view is
 * then `noSuchObject` to GET and invisible to GETNEXT/GETBULK (end of the view), as VACM answers.
 * `viewOf` returns the MIB of a request, undefined for the full one.
 */
function applyViews(agent: Agent, viewOf: (m: RequestMessage) => Mib | undefined): void {
  const methods = agent as unknown as Record<(typeof REQUEST_METHODS)[number], RequestMethod>;
  for (const name of REQUEST_METHODS) {
    const original = methods[name].bind(agent);
    methods[name] = (socket, message, rinfo) => {
      const view = viewOf(message);
      if (view === undefined) return original(socket, message, rinfo);
      const full = agent.getMib();
      agent.setMib(view);
      try {
        original(socket, message, rinfo);
      } finally {
        agent.setMib(full);
      }
    };
  }
}

/** `udp:<ip>/<port>` -> a net-snmp socket; TCP is not served (warning). */
function socketOf(address: string): { transport: string; address: string; port: number } | undefined {
  const m = /^(udp|tcp):(.+)\/(\d+)$/.exec(address);
  if (m === null || m[1] === 'tcp') return undefined;
  const ip = m[2] ?? '';
  return { transport: ip.includes(':') ? 'udp6' : 'udp4', address: ip, port: Number(m[3]) };
}

export class SnmpService {
  private agent: Agent | undefined;
  private notifier: SnmpNotifier | undefined;
  private readonly startedAt = Date.now();
  private lastChange = Date.now();
  private operStatus = 5;
  private counts: TransferCounts = countTransfers([]);
  private countedAt = 0;
  private counting: Promise<void> | undefined;
  private engine: TransferEngine | undefined;
  private memoryWatch: MemoryWatch | undefined;
  private readonly names: SystemNames;
  private readonly listeners = {
    end: (o: TransferOutcome) => this.onEnd(o),
    start: (r: TransferRecord) => this.onSave(r),
    progress: (p: TransferProgress) => this.onProgress(p),
  };

  /** Where the notifications of the rest of the host reach this agent's notifier. */
  readonly hub: NotificationHub;

  constructor(private readonly config: SnmpConfig, private readonly deps: SnmpServiceDeps) {
    this.names = { ...DEFAULT_NAMES, ...deps.names };
    this.hub = deps.hub ?? new NotificationHub();
  }

  /** UDP ports bound (tests). */
  ports: number[] = [];

  async start(): Promise<void> {
    const { logger } = this.deps;
    for (const w of this.config.warnings) logger.warn({ file: this.config.file }, w);
    if (this.config.filtered) logger.warn({ file: this.config.file }, '<filtered> True is not acted on: SNMPv1/v2c requests are not filtered by source address (bind <localaddress> to an address only the managers reach)');
    const sockets = this.config.localAddresses.map((a) => {
      const s = socketOf(a);
      if (s === undefined) logger.warn({ address: a }, 'SNMP listening address skipped: only udp:<ip>/<port> is served');
      return s;
    }).filter((s) => s !== undefined);
    if (sockets.length === 0) throw new Error(`${this.config.file}: no usable <localaddress> (expected udp:<ip>/<port>)`);
    let failure: Error | undefined;
    const agent = snmp.createAgent({ sockets, disableAuthorization: false }, (err) => {
      // Bad packets from the network (wrong community, unknown user) arrive here too: debug only.
      if (err && (err as Error & { code?: string }).code !== undefined) failure ??= err;
      else if (err) logger.debug({ err: err.message }, 'SNMP request refused');
    });
    await this.bound(agent).catch((err: Error) => { agent.close(); throw new Error(`SNMP agent cannot listen on ${this.config.localAddresses.join(', ')}: ${err.message}`); });
    if (failure) throw failure;
    const authorizer = agent.getAuthorizer();
    authorizer.addCommunity('public');
    const views = new Map<string, 'full' | 'restricted'>();
    for (const s of this.config.securities) {
      const user = snmpUser(s);
      if (typeof user === 'string') logger.warn({ file: this.config.file, user: s.name }, `SNMPv3 user skipped: ${user}`);
      else {
        authorizer.addUser(user);
        views.set(user.name, user.level === snmp.SecurityLevel.authPriv ? 'full' : 'restricted');
      }
    }
    this.register(agent.getMib(), [...SYSTEM_OBJECTS, ...PRIVATE_OBJECTS]);
    const restricted = snmp.createMib();
    this.register(restricted, [...SYSTEM_OBJECTS, ...PRIVATE_OBJECTS].filter((o) => inView(o.oid, RESTRICTED_VIEW)));
    applyViews(agent, (m) => {
      if (m.version !== snmp.Version3) return undefined;
      const view = views.get(m.user?.name ?? '');
      return view === 'full' ? undefined : view === 'restricted' ? restricted : EMPTY;
    });
    this.agent = agent;
    this.notifier = new SnmpNotifier(this.config, this.names, this.startedAt, logger);
    this.hub.attach(this.notifier);
    this.operStatus = 1;
    this.lastChange = Date.now();
    this.attach();
    await this.notifier.startStop(true);
    // Memory running out: the original's OOME warning (warnings.ts), checked every 5 s.
    this.memoryWatch = new MemoryWatch({ ratio: memoryWarnRatio(), notify: this.hub.notify, onLow: (detail) => logger.warn({ detail }, 'memory nearly exhausted') });
    this.memoryWatch.start();
  }

  describe(): string[] {
    return [`SNMP agent on ${this.config.localAddresses.join(', ')} (notifications level ${this.config.trapInformLevel} to ${this.config.targets.length} target(s))`];
  }

  async stop(): Promise<void> {
    this.memoryWatch?.stop();
    this.memoryWatch = undefined;
    this.detach();
    const notifier = this.notifier;
    this.notifier = undefined;
    this.hub.attach(undefined, notifier);
    if (notifier !== undefined) {
      await notifier.startStop(false);
      notifier.close();
    }
    const agent = this.agent;
    this.agent = undefined;
    if (agent !== undefined) await new Promise<void>((resolve) => { try { agent.close(() => resolve()); } catch { resolve(); } });
  }

  /** Subscribes to the engine's events (transfer errors and info-task notifications). */
  attach(): void {
    const engine = this.deps.engine();
    if (engine === undefined || engine === this.engine) return;
    this.detach();
    this.engine = engine;
    engine.on('end', this.listeners.end);
    if (this.config.trapInformLevel >= TrapLevel.AllEvents) {
      engine.on('start', this.listeners.start);
      engine.on('progress', this.listeners.progress);
    }
  }

  private detach(): void {
    this.engine?.off('end', this.listeners.end);
    this.engine?.off('start', this.listeners.start);
    this.engine?.off('progress', this.listeners.progress);
    this.engine = undefined;
  }

  private onEnd(o: TransferOutcome): void {
    const n = this.notifier;
    if (n === undefined) return;
    const r = o.record;
    // Refused for load (code l): the original's "overloaded" notification, else the error one.
    const partner = r.requested === this.deps.hostId ? r.requester : r.requested;
    if (o.code.char === 'l') void n.notify('overloaded', `Rule: ${r.idRule} from ${partner}`, o.message);
    else if (o.code.char !== 'O') void n.notify('error', `Transfer in error since ${o.message}`, o.code.meaning);
    const final = r.updatedInfo === UpdatedInfo.INERROR || r.updatedInfo === UpdatedInfo.INTERRUPTED;
    if (final || n.level >= TrapLevel.AllEvents) void n.infoTask(SnmpNotifier.taskText(r, final), r);
  }

  private onSave(r: TransferRecord): void {
    void this.notifier?.infoTask(SnmpNotifier.taskText(r, false), r);
  }

  /** Level 5 during the transfer step: every 100th rank only (§B.5). */
  private onProgress(p: TransferProgress): void {
    if (p.rank % 100 !== 0) return;
    void this.deps.store().runner.findBySpecialId(this.deps.hostId, p.ref.specialId).then((rows) => {
      const r = rows.find((x) => x.requester === p.ref.requester && x.requested === p.ref.requested);
      if (r !== undefined) this.onSave(r);
    }, () => undefined);
  }

  private bound(agent: Agent): Promise<void> {
    // net-snmp binds its sockets without telling when; wait for each one's `listening`.
    const sockets = Object.values((agent as unknown as { listener: { sockets: Record<string, UdpSocket> } }).listener.sockets);
    return Promise.all(sockets.map((s) => new Promise<void>((resolve, reject) => {
      s.once('listening', () => { this.ports.push(s.address().port); resolve(); });
      s.once('error', reject);
    }))).then(() => undefined);
  }

  private register(mib: Mib, objects: MibObject[]): void {
    const initial = this.values();
    for (const o of objects) {
      mib.registerProvider({
        name: o.name, type: snmp.MibProviderType.Scalar, oid: o.oid, scalarType: TYPES[o.kind], maxAccess: snmp.MaxAccess['read-only'],
        handler: (req: MibRequest) => void this.answer(o, req),
      });
      // Creates the `.0` instance; the handler puts the live value in it at every request.
      mib.setScalarValue(o.name, o.value(initial));
    }
  }

  private async answer(o: MibObject, req: MibRequest): Promise<void> {
    try {
      await this.refresh();
      req.instanceNode.value = o.value(this.values());
      req.done();
    } catch {
      req.done({ errorStatus: 5 });
    }
  }

  private values(): MibValues {
    const throughput = this.engine?.bandwidth.throughput() ?? { read: 0, write: 0 };
    return {
      counts: this.counts, hostId: this.deps.hostId, version: PRODUCT_VERSION, port: this.deps.port, startedAt: this.startedAt, lastChange: this.lastChange,
      operStatus: this.operStatus, throughput, connections: this.deps.connections(), names: this.names,
    };
  }

  /**
   * The transfer counts, taken again when older than `minimaldelay`: one grouped count in the
   * database over the rows started since the agent start (a few groups, not the rows).
   */
  private refresh(): Promise<void> {
    if (Date.now() - this.countedAt < this.deps.minimalDelayMs) return Promise.resolve();
    this.counting ??= this.deps.store().runner.tally({ ownerReq: this.deps.hostId, startFrom: new Date(this.startedAt - 100) }, this.deps.hostId)
      .then((groups) => { this.counts = countTransfers(groups); this.countedAt = Date.now(); })
      .finally(() => { this.counting = undefined; });
    return this.counting;
  }
}
