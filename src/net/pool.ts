/**
 * One connection per partner, reused by every conversation with it (r66-protocol.md §1.4,
 * design.md §5), and the requester side of authentication: a new channel sends an Authent and
 * checks the answer exactly as the acceptor checks a request (§6.2), or, when the partner supports
 * it, reuses the connection's authentication (§6.6).
 */
import { ErrorCode } from '../model/error-code.js';
import { authentRefusalPacket, errorOfPacket } from '../protocol/index.js';
import { NO_ADDRESS, type Host } from '../model/host.js';
import { buildAuthent, checkAuthent } from './authentication.js';
import type { LocalChannel } from './channel.js';
import type { Connection } from './connection.js';
import { connectTo } from './connector.js';
import type { NetContext } from './context.js';
import { R66Error } from '../model/r66-error.js';
import type { AuthenticatedPartner } from './partner.js';
import type { TlsMaterial } from './tls.js';

export class ConnectionPool {
  private readonly open = new Map<string, Connection>();
  private readonly pending = new Map<string, Promise<Connection>>();
  /** The last authentication refusal (Error A) of each partner: a blacklisting partner closes the next connections at once. */
  private readonly refusals = new Map<string, { at: number; reason: string }>();
  private closed = false;

  constructor(
    private readonly ctx: NetContext,
    private readonly tls?: TlsMaterial,
  ) {}

  /** Number of open connections (for tests and monitoring). */
  get size(): number {
    return this.open.size;
  }

  /** The open connection to `host`, or a new one; concurrent callers share one attempt. */
  async connection(host: Host): Promise<Connection> {
    if (this.closed) throw new R66Error(ErrorCode.ConnectionImpossible, 'the connection pool is closed');
    const key = host.hostId;
    const existing = this.open.get(key);
    if (existing && !existing.isClosing) return existing;
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const attempt = connectTo(this.ctx, host, this.tls).then(
      (conn) => {
        this.pending.delete(key);
        this.open.set(key, conn);
        conn.once('closed', () => {
          if (this.open.get(key) === conn) this.open.delete(key);
        });
        if (this.closed) conn.close();
        return conn;
      },
      (err: unknown) => {
        this.pending.delete(key);
        throw err;
      },
    );
    this.pending.set(key, attempt);
    return attempt;
  }

  /**
   * The partner `hostId` as the directory has it now (HOSTS, or authent.xml without a database),
   * its key not decrypted; undefined when not known.
   */
  async partner(hostId: string): Promise<Host | undefined> {
    const directory = this.ctx.directory;
    return directory.host !== undefined ? directory.host(hostId) : (await directory.find(hostId))?.host;
  }

  /**
   * A new channel to the partner `hostId`, authenticated. Refusals and unknown partners throw an
   * R66Error with the code to report (BadAuthent, NotKnownHost, ConnectionImpossible...).
   *
   * `known`: the partner's entry as partner() gave it to the caller for this same conversation (a
   * new transfer reads it to create its record): its address is used instead of a second lookup.
   * Authentication, when the connection needs it, still looks the partner and its key up.
   */
  async openChannel(hostId: string, known?: Host): Promise<{ channel: LocalChannel; partner: AuthenticatedPartner }> {
    const host = known?.hostId === hostId ? known : await this.partner(hostId);
    if (host === undefined) throw new R66Error(ErrorCode.NotKnownHost, `partner ${hostId} is not known`);
    if (host.isClient || host.address === NO_ADDRESS) {
      throw new R66Error(ErrorCode.NotKnownHost, `partner ${hostId} is a client without address: it cannot be contacted`);
    }
    const connection = await this.connection(host);
    const channel = connection.openChannel();
    const reused = connection.authenticatedPartner;
    if (reused !== undefined && reused.host.hostId === hostId) {
      channel.partner = reused;
      return { channel, partner: reused };
    }
    try {
      const partner = await this.authenticate(channel, hostId);
      return { channel, partner };
    } catch (err) {
      channel.close(err as Error);
      throw err;
    }
  }

  private async authenticate(channel: LocalChannel, hostId: string): Promise<AuthenticatedPartner> {
    const connection = channel.connection;
    const isTls = connection.options.isTls;
    let answer;
    try {
      await channel.send(await buildAuthent(this.ctx.identity, this.ctx.directory, isTls, channel.localId, 0));
      answer = await channel.receive(this.ctx.timeoutConMs, 'the Authent answer');
    } catch (err) {
      throw closedBeforeAnswer(err, hostId, this.refusals.get(hostId), this.ctx.timeoutConMs);
    }
    if (answer.kind === 'error') {
      // A refusal (Error `A`) is final: no retry, the partner has blacklisted us (§6.5, trap 13.12).
      if (answer.code === ErrorCode.BadAuthent) this.refusals.set(hostId, { at: Date.now(), reason: answer.message });
      throw errorOfPacket(answer);
    }
    if (answer.kind !== 'authent' || answer.way === 0) {
      throw new R66Error(ErrorCode.ConnectionImpossible, `unexpected ${answer.kind} packet in answer to Authent`);
    }
    const outcome = await checkAuthent(answer, {
      directory: this.ctx.directory,
      isTls,
      remoteIp: connection.remoteAddress,
      identity: this.ctx.identity,
      checkAddress: this.ctx.checkAddress,
      checkClientAddress: this.ctx.checkClientAddress,
    });
    if (!outcome.ok) {
      // The partner's answer does not authenticate it: tell it like the original, then drop it.
      await channel.send(authentRefusalPacket(outcome.reason)).catch(() => undefined);
      connection.close(new R66Error(outcome.code, outcome.reason));
      throw new R66Error(outcome.code, `partner not authenticated: ${outcome.reason}`);
    }
    channel.partner = outcome.partner;
    connection.markAuthenticated(outcome.partner, this.ctx.reuseAuthentication && outcome.partner.capabilities.authenticationReuse);
    return outcome.partner;
  }

  /**
   * Closes the connections to the partner `hostId` (the Hosts page's CloseConn, web-ui.md §2.4): its
   * channels fail with Disconnection, as when the partner goes away; the next conversation opens a
   * new connection. Resolves, once they are closed, with how many there were.
   */
  async closePartner(hostId: string, reason: Error = new R66Error(ErrorCode.Disconnection, `connections to ${hostId} closed by an administrator`)): Promise<number> {
    const found = [...this.open.entries()].filter(([key, c]) => key === hostId || c.partnerIds.has(hostId)).map(([, c]) => c);
    for (const c of found) c.close(reason);
    await Promise.all(found.map((c) => c.closed));
    return found.length;
  }

  /** The server shuts down: "Shutdown forced" on every open channel of its connections (§9.12). */
  notifyShutdown(): void {
    for (const c of this.open.values()) c.notifyShutdown();
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.open.values()];
    for (const c of all) c.close();
    await Promise.all(all.map((c) => c.closed));
  }
}

/** How long a refusing partner blacklists the address by default: 5 x timeoutcon (r66-protocol.md §1.4). */
const BLACKLIST_FACTOR = 5;

/**
 * The error of a connection the partner closed before answering the Authent. A partner that refused
 * this address's authentication blacklists it (r66-protocol.md §1.4, §6.5): it accepts the next
 * connections and closes them, nothing sent. After a refusal seen by this process, that is the
 * cause: BadAuthent, final (no retry, which would only keep the address banned). Without one (a new
 * process), the original's code for a connection that cannot be validated, ConnectionImpossible,
 * with the likely causes named instead of a bare Disconnection.
 */
function closedBeforeAnswer(err: unknown, hostId: string, refused: { at: number; reason: string } | undefined, timeoutConMs: number): unknown {
  if (!(err instanceof R66Error) || err.code !== ErrorCode.Disconnection || err.fromPartner) return err;
  if (refused !== undefined && Date.now() - refused.at < BLACKLIST_FACTOR * timeoutConMs) {
    const when = new Date(refused.at).toISOString();
    return new R66Error(ErrorCode.BadAuthent, `${hostId} closed the connection without answering: this address is blacklisted since ${hostId} refused its authentication at ${when} (${refused.reason})`);
  }
  return new R66Error(ErrorCode.ConnectionImpossible, `${hostId} closed the connection without answering the authentication: it refuses this address (blacklisted for 5 x timeoutcon after a refused authentication: check this host's id and key in ${hostId}'s partner table), it ended the TLS handshake (a certificate it does not trust, or a plain connection to its TLS port), or it is shutting down or at its connection limit`);
}
