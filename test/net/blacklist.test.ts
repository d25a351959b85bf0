// Blacklisting of repeated authentication failures (r66-protocol.md §1.4, §6.5; config.md §11):
// on by default for 5 x timeoutcon, switched off or tuned like the original's JVM properties.
import { afterEach, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../../src/config/index.js';
import { Digest } from '../../src/model/digest.js';
import { BlacklistSettingError, blacklistOptionsFrom } from '../../src/net/blacklist.js';
import { R66Network } from '../../src/net/network.js';
import { authentPacket, buildVersionString, encodeFrame, NOCHANNEL } from '../../src/protocol/index.js';
import { makeInstance, type Instance } from '../config/instance.js';
import { waitFor } from '../helpers/wait.js';
import { silent } from './harness.js';
import { RawPeer } from './raw-peer.js';

describe('blacklist settings', () => {
  it('defaults to the original: on, 5 x timeoutcon; off when this host is proxified', () => {
    expect(blacklistOptionsFrom({}, 30_000)).toEqual({ enabled: true, durationMs: 150_000 });
    expect(blacklistOptionsFrom({}, 10_000).durationMs).toBe(50_000);
    expect(blacklistOptionsFrom({}, 30_000, true).enabled).toBe(false);
    expect(blacklistOptionsFrom({ SVC_R66_ISHOSTPROXYFIED: '1' }, 30_000).enabled).toBe(false);
  });

  it('SVC_R66_BLACKLIST_BADAUTHENT turns it off or on (as -Dopenr66.blacklist.badauthent), SVC_R66_BLACKLIST_DURATION_MS tunes it', () => {
    expect(blacklistOptionsFrom({ SVC_R66_BLACKLIST_BADAUTHENT: '0' }, 30_000).enabled).toBe(false);
    expect(blacklistOptionsFrom({ SVC_R66_BLACKLIST_BADAUTHENT: 'false' }, 30_000).enabled).toBe(false);
    expect(blacklistOptionsFrom({ SVC_R66_BLACKLIST_BADAUTHENT: '1' }, 30_000, true).enabled).toBe(true);
    expect(blacklistOptionsFrom({ SVC_R66_BLACKLIST_DURATION_MS: '2000' }, 30_000)).toEqual({ enabled: true, durationMs: 2000 });
    expect(blacklistOptionsFrom({ SVC_R66_BLACKLIST_DURATION_MS: '0' }, 30_000).enabled).toBe(false);
  });

  it('a bad value stops the start with a message naming the variable', () => {
    expect(() => blacklistOptionsFrom({ SVC_R66_BLACKLIST_BADAUTHENT: 'maybe' }, 30_000)).toThrow(BlacklistSettingError);
    expect(() => blacklistOptionsFrom({ SVC_R66_BLACKLIST_BADAUTHENT: 'maybe' }, 30_000)).toThrow(/SVC_R66_BLACKLIST_BADAUTHENT must be 1 or 0/);
    expect(() => blacklistOptionsFrom({ SVC_R66_BLACKLIST_DURATION_MS: '5s' }, 30_000)).toThrow(/SVC_R66_BLACKLIST_DURATION_MS must be a number of milliseconds/);
  });
});

describe('blacklist on a server started from server.xml', () => {
  let inst: Instance | undefined;
  let network: R66Network | undefined;
  const version = buildVersionString({ hostId: 'nobody', finalHash: true, digest: Digest.MD5, proxified: false, compression: false });

  afterEach(async () => {
    await network?.stop();
    await inst?.cleanup();
    network = undefined;
    inst = undefined;
  });

  async function start(env: NodeJS.ProcessEnv): Promise<number> {
    inst = await makeInstance();
    const file = await inst.sample('server.xml', (xml) => xml.replace('<serverport>6666</serverport>', '<serverport>0</serverport>').replace(/<usessl>True<\/usessl>/i, '<usessl>False</usessl>'));
    const config = await loadServerConfig(file);
    network = new R66Network(config, () => ({ findHost: async () => undefined, findRule: async () => undefined }), silent, env);
    await network.start();
    return network.ports[0]!;
  }

  /** Sends an Authent for an unknown host; resolves to the answer's error code, or null when closed at once. */
  async function badAuthent(port: number): Promise<string | null> {
    const peer = await RawPeer.open(port);
    try {
      peer.write(encodeFrame(NOCHANNEL, 7, authentPacket('nobody', 'x', version, 0, 7)));
      const got = await peer.next();
      return got === null ? null : (got.packet as { code?: { char: string } }).code?.char ?? got.packet.kind;
    } finally {
      peer.destroy();
    }
  }

  it('by default bans the address: the second connection is closed at once', async () => {
    const port = await start({});
    expect(await badAuthent(port)).toBe('A');
    expect(await badAuthent(port)).toBeNull();
  });

  it('SVC_R66_BLACKLIST_BADAUTHENT=0: every attempt gets the refusal again', async () => {
    const port = await start({ SVC_R66_BLACKLIST_BADAUTHENT: '0' });
    expect(await badAuthent(port)).toBe('A');
    expect(await badAuthent(port)).toBe('A');
  });

  it('SVC_R66_BLACKLIST_DURATION_MS: the ban ends after that time', async () => {
    const port = await start({ SVC_R66_BLACKLIST_DURATION_MS: '300' });
    expect(await badAuthent(port)).toBe('A');
    expect(await badAuthent(port)).toBeNull();
    await waitFor(async () => ((await badAuthent(port)) === 'A' ? true : undefined), { what: 'the ban to end', timeoutMs: 5_000 });
  });
});
