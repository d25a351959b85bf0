import { describe, expect, it } from 'vitest';
import {
  Digest,
  ErrorCode,
  authentPacket,
  authentRefusalPacket,
  blockCompressionActive,
  buildVersionString,
  checkAuthent,
  decodePacket,
  deriveWireKey,
  encodeFrame,
  encodePacket,
  parseVersionString,
  requestEncodingFor,
  versionAtLeast,
  wireKeyMatches,
  type AuthentPacket,
  type AuthentPartnerEntry,
} from '../../src/protocol/index.js';
import { ANNOUNCED_R66_VERSION } from '../../src/model/product.js';

describe('wire key derivation (captures/README.md, r66-protocol.md §6.1)', () => {
  it.each([
    ['secret', '8af5b987ed92515f97bb4a4b717a0286'],
    ['pwdB', '4d2f7dd22d3ec1821da9d5e2731586b0'],
    ['test de password', 'ef99dfce1fdaa787cef4701368f79cfb'],
    ['test de password2', '7e206906d6666797658ab0405076e111'],
  ])('%s', (password, key) => {
    expect(deriveWireKey(password).toString('hex')).toBe(key);
    expect(deriveWireKey(Buffer.from(password)).toString('hex')).toBe(key);
    expect(wireKeyMatches(Buffer.from(key, 'hex'), password)).toBe(true);
    expect(wireKeyMatches(Buffer.from(key.slice(2), 'hex'), password)).toBe(false);
  });
});

const HOSTA_VERSION =
  '3.1.0.{"HOSTID":"hosta","VERSION":"3.1.0","FILESIZE":true,"FINALHASH":true,"DIGESTALGO":"SHA-512","PROXIFIED":false,"SEPARATOR":";","R66VERSION":"3.6.2","COMPRESSION":false}';

describe('version string', () => {
  it('announces exactly what a Java 3.6.2 host announces (capture and packets §2)', () => {
    expect(ANNOUNCED_R66_VERSION).toBe('3.6.2');
    expect(buildVersionString({ hostId: 'hosta', finalHash: true, digest: Digest.SHA512, proxified: false, compression: false })).toBe(HOSTA_VERSION);
    const md5 = buildVersionString({ hostId: 'hosta', finalHash: true, digest: Digest.MD5, proxified: false, compression: false });
    expect(md5).toBe(HOSTA_VERSION.replace('SHA-512', 'MD5'));
    expect(md5.length).toBe(169);
  });

  it('always carries VERSION >= 2.4.13 and a non-blank SEPARATOR (a Java host crashes otherwise)', () => {
    const p = parseVersionString(buildVersionString({ hostId: 'x', finalHash: false, digest: Digest.CRC32, proxified: true, compression: true }));
    expect(versionAtLeast(p.version, '2.4.13')).toBe(true);
    expect(p.raw.SEPARATOR).toBe(';');
    expect(p).toMatchObject({ finalHash: false, digest: Digest.CRC32, proxified: true, compression: true, usesJson: true, authenticationReuse: true });
  });

  it('parses a Java 3.6.2 partner', () => {
    const p = parseVersionString(HOSTA_VERSION);
    expect(p).toMatchObject({ version: '3.1.0', hostId: 'hosta', fileSize: true, finalHash: true, digest: Digest.SHA512, proxified: false, separator: ';', r66Version: '3.6.2', compression: false, usesJson: true, authenticationReuse: true });
    expect(requestEncodingFor(p)).toBe('json');
  });

  it('applies the defaults of old or missing versions', () => {
    const none = parseVersionString(null, { digest: Digest.SHA256 });
    expect(none).toMatchObject({ version: '2.4.12', separator: ' ', digest: Digest.SHA256, finalHash: true, usesJson: false, r66Version: '2.4.12', authenticationReuse: false });
    expect(requestEncodingFor(none)).toBe('legacy');
    const old = parseVersionString('2.4.16');
    expect(old).toMatchObject({ separator: ';', usesJson: false });
    expect(parseVersionString('3.0.4').r66Version).toBe('3.0.4');
    expect(parseVersionString('3.1.0.{"R66VERSION":"3.6.0"}').authenticationReuse).toBe(false);
    expect(parseVersionString('3.1.0.{"R66VERSION":"3.6.1-jre11"}').authenticationReuse).toBe(true);
    expect(parseVersionString('3.1.0.{"DIGESTALGO":"SHA256"}').digest).toBe(Digest.SHA256);
    expect(parseVersionString('3.1.0.{"DIGESTALGO":"WHIRLPOOL"}', { digest: Digest.SHA1 }).digest).toBe(Digest.SHA1);
    expect(parseVersionString('3.1.0.{not json').version).toBe('3.1.0');
  });

  it('block compression needs both flags and the #COMPRESS# marker', () => {
    const on = parseVersionString('3.1.0.{"COMPRESSION":true}');
    expect(blockCompressionActive(true, on, 'x #COMPRESS# y')).toBe(true);
    expect(blockCompressionActive(false, on, '#COMPRESS#')).toBe(false);
    expect(blockCompressionActive(true, on, 'noinfo')).toBe(false);
    expect(blockCompressionActive(true, parseVersionString(HOSTA_VERSION), '#COMPRESS#')).toBe(false);
  });

  it('compares versions numerically, ignoring suffixes; malformed is never >=', () => {
    expect(versionAtLeast('3.6.2-jre8', '3.6.1')).toBe(true);
    expect(versionAtLeast('2.4.9', '2.4.13')).toBe(false);
    expect(versionAtLeast('10.0.0', '9.9.9')).toBe(true);
    expect(versionAtLeast('3.x', '1.0.0')).toBe(false);
  });
});

describe('checks on a received Authent (r66-protocol.md §6.3)', () => {
  const entries: Record<string, AuthentPartnerEntry> = {
    hosta: { hostId: 'hosta', isSsl: false, isActive: true, password: Buffer.from('test de password') },
    nokey: { hostId: 'nokey', isSsl: false, isActive: false, password: null },
    off: { hostId: 'off', isSsl: false, isActive: false, password: Buffer.from('x') },
    tls: { hostId: 'tls', isSsl: true, isActive: true, password: Buffer.from('x') },
  };
  const ctx = { isTls: false, lookup: (id: string) => entries[id] };
  const packet = (hostId: string, password: string, version: string | null = HOSTA_VERSION): AuthentPacket => ({ ...authentPacket(hostId, password, version ?? '', 0, 7), version });

  it('accepts the capture hosts and reads their capabilities', () => {
    const r = checkAuthent(packet('hosta', 'test de password'), ctx);
    expect(r.ok && r.capabilities.digest).toBe(Digest.SHA512);
    expect(r.ok && r.isRequest).toBe(true);
  });
  it('refuses in the Java order with the Java texts', () => {
    expect(checkAuthent(packet('who', 'x'), ctx)).toEqual({ ok: false, code: ErrorCode.BadAuthent, reason: 'HostId not allowed: who' });
    expect(checkAuthent(packet('tls', 'bad'), ctx)).toMatchObject({ ok: false, reason: 'HostId not allowed: mixed Ssl' });
    expect(checkAuthent(packet('hosta', 'bad'), ctx)).toMatchObject({ ok: false, reason: 'Key is not valid for this HostId' });
    expect(checkAuthent(packet('off', 'x'), ctx)).toMatchObject({ ok: false, reason: 'Host is Inactive therefore connection is refused' });
    expect(checkAuthent(packet('hosta', 'test de password'), { ...ctx, address: { peerIp: '10.0.0.9', allowedIps: ['127.0.0.1'] } })).toMatchObject({
      ok: false,
      reason: 'Server IP not authenticated: 10.0.0.9',
    });
  });
  it('accepts any key for an entry without key, even inactive (checked before the active flag)', () => {
    expect(checkAuthent(packet('nokey', 'anything'), ctx).ok).toBe(true);
  });
  it('assumes 2.4.12 when the end part has no version (E == 5)', () => {
    const local = encodePacket({ ...packet('hosta', 'test de password'), version: null });
    const decoded = decodePacket(local);
    expect(decoded.kind === 'authent' && decoded.version).toBe(null);
    const r = checkAuthent(decoded as AuthentPacket, ctx);
    expect(r.ok && r.capabilities.version).toBe('2.4.12');
  });
  it('builds the refusal Error exactly as captured (session-b frame#220)', () => {
    const bytes = encodeFrame(-0x7e7917ce, 0x39b008e2, authentRefusalPacket('Key is not valid for this HostId'));
    expect(bytes.toString('hex')).toBe(
      '0000005f8186e83239b008e2050000004d000000010000000405' +
        Buffer.from('Code: REPLY_530_NOT_LOGGED_IN Mesg: Key is not valid for this HostId').toString('hex') +
        '4100000003',
    );
  });
  it('reproduces the spec example frame of hosta/secret (packets §2)', () => {
    const version = buildVersionString({ hostId: 'hosta', finalHash: true, digest: Digest.MD5, proxified: false, compression: false });
    const bytes = encodeFrame(-0x80000000, 0x1a2b3c4d, authentPacket('hosta', 'secret', version, 0, 0x1a2b3c4d));
    expect(bytes.length).toBe(221);
    expect(bytes.subarray(0, 26).toString('hex')).toBe('000000d9800000001a2b3c4d010000000e00000010000000ae01');
    expect(bytes.subarray(26, 47).toString('hex')).toBe('686f7374618af5b987ed92515f97bb4a4b717a0286');
  });
});
