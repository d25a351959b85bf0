// An authentication refusal and the blacklisting that follows it, through the real client against a
// real server (issue 22 item 2): the partner refuses an unknown host with Error A and then closes
// every connection from that address at once, nothing sent (r66-protocol.md §1.4, §6.5). The client
// names the cause instead of a bare Disconnection: BadAuthent while it knows of the refusal,
// ConnectionImpossible (the original's code for a connection it cannot validate) with the likely
// causes in a new process. Its own server: the blacklist bans 127.0.0.1 for every client of hostb.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasNoStack, PASSWORD_HEX, runCli, writeInstance, type Instance } from './cli-helpers.js';
import { jsonResult, startPair, type Pair } from './client-harness.js';

let pair: Pair;
/** hostz: a client hostb does not know (not in its partner table). */
let z: Instance;
let zEnv: NodeJS.ProcessEnv;
const client = (args: string[]): ReturnType<typeof runCli> => runCli('client', args, zEnv);

beforeAll(async () => {
  pair = await startPair();
  z = writeInstance(join(pair.box.dir, 'conf', 'hostz'), { hostId: 'hostz' });
  const entry = (id: string, port: number): string => `<entry><hostid>${id}</hostid><address>127.0.0.1</address><port>${port}</port><key>${PASSWORD_HEX}</key></entry>`;
  writeFileSync(join(z.confDir, 'authent.xml'), `<authent>${entry('hostz', 6668)}${entry('hostb', pair.bPort)}</authent>\n`);
  mkdirSync(join(z.serverHome, 'out'), { recursive: true });
  for (const f of ['z1.txt', 'z2.txt']) writeFileSync(join(z.serverHome, 'out', f), 'from z');
  zEnv = { ...pair.box.env, CONFDIR: z.confDir };
  expect((await client(['initdb', '-auth', join(z.confDir, 'authent.xml'), '-dir', z.confDir])).code).toBe(0);
}, 60_000);
afterAll(async () => {
  await pair?.stop();
});

describe('a refused authentication, then the blacklisted address', () => {
  it('in one process: the refusal (A, the partner\'s text), then the closed connection reported as BadAuthent naming the refusal', async () => {
    const r = await client(['msend', '-to', 'hostb', '-rule', 'send', '-file', 'z1.txt,z2.txt']);
    expect(hasNoStack(r.stderr), r.stderr).toBe(true);
    expect(r.code).toBe(2);
    const [first, second] = [jsonResult(r.stdout, 1), jsonResult(r.stdout, 2)];
    expect(first).toMatchObject({ statusCode: 'A', error: 'BadAuthent: Code: REPLY_530_NOT_LOGGED_IN Mesg: HostId not allowed: hostz' });
    expect(second.statusCode).toBe('A');
    expect(String(second.error)).toMatch(/^BadAuthent: hostb closed the connection without answering: this address is blacklisted since hostb refused its authentication at \S+ \(Code: REPLY_530_NOT_LOGGED_IN Mesg: HostId not allowed: hostz\)$/);
  });

  it('in a new process while banned: ConnectionImpossible (exit 5) naming the blacklist, not a bare Disconnection', async () => {
    const sent = await client(['send', '-to', 'hostb', '-rule', 'send', '-file', 'z1.txt']);
    expect(hasNoStack(sent.stderr), sent.stderr).toBe(true);
    expect(sent.code).toBe(5);
    expect(jsonResult(sent.stdout)).toMatchObject({ statusCode: 'C' });
    expect(String(jsonResult(sent.stdout).error)).toContain('hostb closed the connection without answering the authentication: it refuses this address (blacklisted for 5 x timeoutcon after a refused authentication');
    const msg = await client(['message', '-to', 'hostb', '-msg', 'hi']);
    expect(msg.code).toBe(2);
    expect(msg.stdout).toMatch(/^Test Message {7}FAILURE ConnectionImpossible: hostb closed the connection without answering the authentication: it refuses this address \(blacklisted/);
  });
});
