/**
 * logback's SyslogAppender for a Java host's logback file (issue 34 item 5): one UDP datagram per
 * line, `<PRI>MMM dd HH:mm:ss host ` then the appender's suffixPattern, as logback sends it, so
 * the syslog filters an operator wrote for the original keep matching. Written on node:dgram
 * (decision 0045: a datagram per line in logback's own layout is all there is to it).
 */
import { createSocket } from 'node:dgram';
import { hostname } from 'node:os';
import type { LogbackSyslog } from '../config/logback.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** A datagram is kept under the IPv4 UDP maximum; logback truncates nothing, the network would. */
const MAX_DATAGRAM = 65_000;

/** Syslog severity of a pino level: ERROR 3, WARN 4, INFO 6, DEBUG and TRACE 7 (logback's mapping). */
export function syslogSeverity(pinoLevel: number): number {
  if (pinoLevel >= 50) return 3;
  if (pinoLevel >= 40) return 4;
  if (pinoLevel >= 30) return 6;
  return 7;
}

/** RFC 3164's timestamp: `Dec  2 16:05:09` (day padded with a space), local time. */
export function syslogTimestamp(d: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, ' ')} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

export function syslogHeader(facility: number, pinoLevel: number, at: Date, host: string = hostname()): string {
  return `<${facility * 8 + syslogSeverity(pinoLevel)}>${syslogTimestamp(at)} ${host} `;
}

export interface SyslogSender {
  send(pinoLevel: number, at: Date, suffix: string): void;
  close(): Promise<void>;
}

/** A UDP sender; a send that fails (no route, host unknown) is dropped as syslog over UDP is. */
export function openSyslogSender(target: LogbackSyslog): SyslogSender {
  const socket = createSocket(target.host.includes(':') ? 'udp6' : 'udp4');
  socket.on('error', () => undefined);
  socket.unref();
  const host = hostname();
  return {
    send(pinoLevel, at, suffix) {
      const bytes = Buffer.from(syslogHeader(target.facility, pinoLevel, at, host) + suffix.replace(/\r?\n$/, ''), 'utf8');
      socket.send(bytes.subarray(0, MAX_DATAGRAM), target.port, target.host, () => undefined);
    },
    close: () => new Promise<void>((resolve) => { try { socket.close(() => resolve()); } catch { resolve(); } }),
  };
}
