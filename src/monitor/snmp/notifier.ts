/**
 * SNMP notifications (monitoring.md §B.5): traps or informs (`usetrap`) to every target of
 * snmpconfig.xml, SNMPv2c (community `public`) or SNMPv3 (user `v3notify`, no auth, no privacy),
 * filtered by `trapinformlevel`. Sending never blocks nor fails the caller: errors are logged.
 */
import snmp, { type Session, type Varbind } from 'net-snmp';
import type { Logger } from 'pino';
import type { SnmpConfig, SnmpTarget } from '../../config/index.js';
import { TransferMode } from '../../model/rule.js';
import type { InfoTaskFields, NotificationKind, NotificationSender } from '../../model/notifications.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../model/transfer.js';
import { ROOT, SYSTEM, ticksSince, type SystemNames } from './mib.js';

export type { InfoTaskFields, NotificationKind };

export const NOTIFICATION = `${ROOT}.5.1`;
const COLD_START = '1.3.6.1.6.3.1.1.5.1';
const LINK_DOWN = '1.3.6.1.6.3.1.1.5.3';

/** Levels of `trapinformlevel` (§B.5). */
export const TrapLevel = { None: 0, StartStop: 1, Alert: 2, Warning: 3, All: 4, AllEvents: 5 } as const;

/** Application notifications `…66.5.1.<k>` and their element names. */
const KIND = {
  startOrShutdown: { k: 1, element: 'TrapShutdown', level: TrapLevel.StartStop },
  error: { k: 2, element: 'TrapError', level: TrapLevel.Alert },
  warning: { k: 3, element: 'TrapWarning', level: TrapLevel.Warning },
  overloaded: { k: 4, element: 'TrapOverloaded', level: TrapLevel.Warning },
} as const satisfies Record<NotificationKind, unknown>;

const str = (oid: string, value: string): Varbind => ({ oid, type: snmp.ObjectType.OctetString, value });
const gauge = (oid: string, value: number): Varbind => ({ oid, type: snmp.ObjectType.Gauge, value: Math.max(0, value) >>> 0 });

/** `udp:`/`tcp:` transport of a target domain. */
function transportOf(t: SnmpTarget): { transport: string; ipv6: boolean } | undefined {
  if (t.domain.startsWith('Tcp')) return undefined;
  return { transport: t.domain.startsWith('UdpIpv6') ? 'udp6' : 'udp4', ipv6: t.domain.startsWith('UdpIpv6') };
}

export class SnmpNotifier implements NotificationSender {
  private readonly sessions: Array<{ target: SnmpTarget; session: Session }> = [];

  constructor(
    private readonly config: SnmpConfig,
    private readonly names: SystemNames,
    private readonly startedAt: number,
    private readonly logger: Logger,
  ) {
    for (const target of config.targets) {
      const transport = transportOf(target);
      if (transport === undefined) {
        logger.warn({ target: target.name, domain: target.domain }, 'SNMP target skipped: TCP notification targets are not supported (use a Udp domain)');
        continue;
      }
      const m = /^(.+)\/(\d+)$/.exec(target.address);
      if (m === null) continue;
      const options = { port: Number(m[2]), transport: transport.transport, timeout: target.timeout, retries: target.retries, trapPort: Number(m[2]) };
      const host = m[1] ?? '';
      const session = target.isV2
        ? snmp.createSession(host, 'public', { ...options, version: snmp.Version2c })
        : snmp.createV3Session(host, { name: 'v3notify', level: snmp.SecurityLevel.noAuthNoPriv }, { ...options, version: snmp.Version3 });
      session.on('error', (err) => logger.warn({ target: target.name, err: err?.message }, 'SNMP notification socket error'));
      this.sessions.push({ target, session });
    }
  }

  get level(): number {
    return this.config.trapInformLevel;
  }

  private systemBinds(): Varbind[] {
    const n = this.names;
    return [
      str(`${SYSTEM}.1.0`, n.sysDescr), { oid: `${SYSTEM}.2.0`, type: snmp.ObjectType.OID, value: ROOT },
      str(`${SYSTEM}.4.0`, n.sysContact), str(`${SYSTEM}.5.0`, n.sysName), str(`${SYSTEM}.6.0`, n.sysLocation),
    ];
  }

  /** Sends one notification to every target; resolves when each was sent (trap) or acknowledged / timed out (inform). */
  send(oid: string, varbinds: Varbind[]): Promise<void> {
    return Promise.all(this.sessions.map(({ target, session }) => new Promise<void>((resolve) => {
      const done = (err: Error | null): void => {
        if (err) this.logger.warn({ target: target.name, err: err.message }, `SNMP ${this.config.useTrap ? 'trap' : 'inform'} not delivered`);
        resolve();
      };
      try {
        if (this.config.useTrap) session.trap(oid, varbinds, done);
        else session.inform(oid, varbinds, { timeout: target.timeout, retries: target.retries }, done);
      } catch (err) {
        done(err as Error);
      }
    }))).then(() => undefined);
  }

  /** Agent start (coldStart) or stop (linkDown), level >= 1. */
  startStop(start: boolean): Promise<void> {
    if (this.level < TrapLevel.StartStop) return Promise.resolve();
    return this.send(start ? COLD_START : LINK_DOWN, [str(`${NOTIFICATION}.1.1`, start ? 'Startup Service' : 'Shutdown Service'), ...this.systemBinds()]);
  }

  /**
   * An application notification (error, warning, overloaded, start/stop order): element name,
   * message and detail under the same OID three times, as the original does. `force` skips the
   * level filter.
   */
  notify(kind: NotificationKind, message: string, detail: string): Promise<void> {
    const { k, element, level } = KIND[kind];
    if (this.level < level) return Promise.resolve();
    const oid = `${NOTIFICATION}.${k}`;
    return this.send(oid, [str(`${oid}.1`, element), str(`${oid}.1`, message), str(`${oid}.1`, detail), ...this.systemBinds()]);
  }

  /** Info-task notification `…5.1.5` with the transfer's fields; unfiltered when `force` (SNMP task, delay 1). */
  infoTask(message: string, r: InfoTaskFields, force = false): Promise<void> {
    if (!force && this.level < TrapLevel.All) return Promise.resolve();
    const oid = `${NOTIFICATION}.5`;
    return this.send(oid, [
      str(`${oid}.1`, 'InfoTask'), str(`${oid}.1`, message),
      gauge(`${oid}.1`, r.globalLastStep ?? 0), gauge(`${oid}.2`, (r.step ?? -1) + 1), gauge(`${oid}.3`, r.rank), str(`${oid}.4`, r.stepStatus?.meaning ?? ''),
      str(`${oid}.5`, r.filename), str(`${oid}.6`, r.originalName), str(`${oid}.7`, r.idRule), str(`${oid}.8`, TransferMode[r.mode] ?? String(r.mode)),
      str(`${oid}.9`, r.retrieveMode ? 'Sender' : 'Receiver'),
      { oid: `${oid}.10`, type: snmp.ObjectType.TimeTicks, value: ticksSince(this.startedAt, r.start.getTime()) },
      str(`${oid}.11`, r.infoStatus.meaning), str(`${oid}.12`, r.requester), str(`${oid}.13`, r.requested), str(`${oid}.14`, r.specialId.toString()),
      ...this.systemBinds(),
    ]);
  }

  /** The info-task text of a record save: `Task is <status>` (§B.5). */
  static taskText(r: TransferRecord, final: boolean): string {
    const status = UpdatedInfo[r.updatedInfo] ?? 'UNKNOWN';
    return final ? `Task is ${status}` : `Task is currently ${status} (${TaskStep[r.globalStep] ?? ''})`;
  }

  close(): void {
    for (const { session } of this.sessions.splice(0)) {
      try { session.close(); } catch { /* already closed */ }
    }
  }
}
