// server.xml `<security>` (ours; the original has no such section and ignores it): the limits that
// keep a host facing partners it does not control within bounded memory and file descriptors.
// Every element is optional; docs/security.md lists them with their defaults and how to tune them.
import type { SectionReader } from './values.js';
import { el, section, type XmlOut } from './xml-write.js';

export interface SecurityConfig {
  /** R66: connections open at once on each listener (beyond: accepted and closed at once). */
  maxConnections: number;
  /** R66: connections open at once from one source address on each listener. */
  maxConnectionsPerAddress: number;
  /** R66: largest frame a connection may send before it authenticated (the handshake's needs). */
  handshakeFrameBytes: number;
  /** R66: time an accepted connection has to authenticate before it is closed, ms. */
  handshakeTimeoutMs: number;
  /** R66: connections not authenticated yet on each listener; beyond, the oldest of them is closed. */
  maxUnauthenticated: number;
  /** HTTP (REST, web monitoring, web admin, metrics): connections open at once on each listener. */
  httpMaxConnections: number;
  /** HTTP: connections open at once from one source address on each listener. */
  httpMaxConnectionsPerAddress: number;
  /** HTTP: time a connection may stay without a request in progress (before its first, between two), ms. */
  httpIdleTimeoutMs: number;
  /** HTTP: time a request has, from its headers, to arrive whole (its body included), ms; then its connection is closed. */
  httpRequestTimeoutMs: number;
  /** Every listener of the host together; absent: derived from the open-file limit (net/fd-limit.ts). */
  maxTotalConnections?: number;
  /** Web `/events` streams one address (and one admin session) may hold at once. */
  maxEventStreamsPerClient: number;
  /** R66: bytes of incomplete frames held across every connection of the process. */
  bufferedBytes: number;
  /** Least interval between two log lines of one repeated refusal (the rest are counted), ms. */
  warnIntervalMs: number;
  /** REST: largest request body, every route but the import routes. */
  restBodyLimit: number;
  /** REST: largest body of the configuration import routes. */
  restImportBodyLimit: number;
  /** REST: failed authentications from one address (or for one user) before its lockout. */
  restMaxAuthFailures: number;
  /** REST: how long a lockout lasts, ms. */
  restLockoutMs: number;
  /** REST: accepted clock difference of HMAC and v1 timestamps, both directions, ms. */
  restClockSkewMs: number;
  /** Permission bits of a received file once in place (default 0640). */
  receivedFileMode: number;
}

/** The defaults; the lockout follows the R66 ban (5 x timeoutcon, blacklist.ts). */
export function defaultSecurity(timeoutConMs: number): SecurityConfig {
  return {
    maxConnections: 1000,
    maxConnectionsPerAddress: 100,
    handshakeFrameBytes: 16 * 1024,
    handshakeTimeoutMs: 10_000,
    maxUnauthenticated: 256,
    httpMaxConnections: 512,
    httpMaxConnectionsPerAddress: 64,
    httpIdleTimeoutMs: 10_000,
    httpRequestTimeoutMs: 30_000,
    maxEventStreamsPerClient: 4,
    bufferedBytes: 64 * 1024 * 1024,
    warnIntervalMs: 60_000,
    restBodyLimit: 64 * 1024,
    restImportBodyLimit: 8 * 1024 * 1024,
    restMaxAuthFailures: 5,
    restLockoutMs: 5 * timeoutConMs,
    restClockSkewMs: 300_000,
    receivedFileMode: 0o640,
  };
}

/** `security` of server.xml over the defaults; a value that is not a positive number names its element. */
export function readSecurity(sec: SectionReader, timeoutConMs: number): SecurityConfig {
  const d = defaultSecurity(timeoutConMs);
  const positive = (name: string, fallback: number): number => {
    const v = sec.long(name, fallback);
    if (!(v > 0)) throw sec.error(name, `${v} is not allowed; expected a positive number`);
    return v;
  };
  const modeText = sec.nonEmpty('receivedfilemode');
  if (modeText !== undefined && !/^0?[0-7]{3}$/.test(modeText)) throw sec.error('receivedfilemode', `${JSON.stringify(modeText)} is not a file mode; expected octal digits such as 0640`);
  return {
    maxConnections: positive('maxconnections', d.maxConnections),
    maxConnectionsPerAddress: positive('maxconnectionsperaddress', d.maxConnectionsPerAddress),
    handshakeFrameBytes: positive('handshakeframebytes', d.handshakeFrameBytes),
    handshakeTimeoutMs: positive('handshaketimeout', d.handshakeTimeoutMs),
    maxUnauthenticated: positive('maxunauthenticated', d.maxUnauthenticated),
    httpMaxConnections: positive('httpmaxconnections', d.httpMaxConnections),
    httpMaxConnectionsPerAddress: positive('httpmaxconnectionsperaddress', d.httpMaxConnectionsPerAddress),
    httpIdleTimeoutMs: positive('httpidletimeout', d.httpIdleTimeoutMs),
    httpRequestTimeoutMs: positive('httprequesttimeout', d.httpRequestTimeoutMs),
    ...(sec.has('maxtotalconnections') ? { maxTotalConnections: positive('maxtotalconnections', 0) } : {}),
    maxEventStreamsPerClient: positive('maxeventstreamsperclient', d.maxEventStreamsPerClient),
    bufferedBytes: positive('bufferedbytes', d.bufferedBytes),
    warnIntervalMs: positive('warninterval', d.warnIntervalMs),
    restBodyLimit: positive('restbodylimit', d.restBodyLimit),
    restImportBodyLimit: positive('restimportbodylimit', d.restImportBodyLimit),
    restMaxAuthFailures: positive('restmaxauthfailures', d.restMaxAuthFailures),
    restLockoutMs: positive('restlockout', d.restLockoutMs),
    restClockSkewMs: positive('restclockskew', d.restClockSkewMs),
    receivedFileMode: modeText === undefined ? d.receivedFileMode : parseInt(modeText, 8),
  };
}

/** The host's settings: what server.xml gave, else the defaults (configurations built in code). */
export function securityOf(config: { security?: SecurityConfig; limits: { timeoutCon: number } }): SecurityConfig {
  return config.security ?? defaultSecurity(config.limits.timeoutCon);
}

/** The `security` section for writing server.xml back: only the values that differ from the defaults. */
export function writeSecurity(s: SecurityConfig | undefined, timeoutConMs: number): XmlOut[] {
  if (s === undefined) return [];
  const d = defaultSecurity(timeoutConMs);
  const names: Array<[keyof SecurityConfig, string]> = [
    ['maxConnections', 'maxconnections'], ['maxConnectionsPerAddress', 'maxconnectionsperaddress'], ['handshakeFrameBytes', 'handshakeframebytes'],
    ['handshakeTimeoutMs', 'handshaketimeout'], ['maxUnauthenticated', 'maxunauthenticated'], ['httpMaxConnections', 'httpmaxconnections'],
    ['httpMaxConnectionsPerAddress', 'httpmaxconnectionsperaddress'], ['httpIdleTimeoutMs', 'httpidletimeout'], ['httpRequestTimeoutMs', 'httprequesttimeout'], ['maxTotalConnections', 'maxtotalconnections'],
    ['maxEventStreamsPerClient', 'maxeventstreamsperclient'], ['bufferedBytes', 'bufferedbytes'], ['warnIntervalMs', 'warninterval'], ['restBodyLimit', 'restbodylimit'],
    ['restImportBodyLimit', 'restimportbodylimit'], ['restMaxAuthFailures', 'restmaxauthfailures'], ['restLockoutMs', 'restlockout'],
    ['restClockSkewMs', 'restclockskew'],
  ];
  const children = names.filter(([k]) => s[k] !== d[k]).flatMap(([k, name]) => el(name, s[k] as number));
  if (s.receivedFileMode !== d.receivedFileMode) children.push(...el('receivedfilemode', `0${s.receivedFileMode.toString(8)}`));
  return children.length === 0 ? [] : [section('security', children)];
}
