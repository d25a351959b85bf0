/**
 * Ways to take the database from one cluster member in tests. A TCP relay between a cluster member and its database server, which a test can cut: while cut,
 * every relayed connection is reset and new ones are reset at once (the member loses the database
 * while the others keep it); restore() lets connections through again.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { DbConnectionSettings } from '../../src/store/index.js';

export interface DbProxy {
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startDbProxy(target: { host: string; port: number }): Promise<DbProxy> {
  let cut = false;
  const sockets = new Set<Socket>();
  const track = (s: Socket): void => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const server: Server = createServer((client) => {
    track(client);
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(target);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      cut = true;
      for (const s of sockets) s.resetAndDestroy();
    },
    restore() {
      cut = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Holds a row lock on the MULTIPLEMONITOR row `key` from a connection of its own (a transaction
 * left open), so a member's heartbeat write waits on it while its other statements go through.
 */
export async function holdRowLock(settings: DbConnectionSettings, key: string): Promise<{ release(): Promise<void> }> {
  if (settings.dialect === 'postgresql') {
    const c = new pg.Client({ host: settings.host, port: settings.port, user: settings.user, password: settings.password, database: settings.database, options: settings.schema ? `-c search_path=${settings.schema}` : undefined });
    await c.connect();
    await c.query('BEGIN');
    await c.query('SELECT hostid FROM multiplemonitor WHERE hostid = $1 FOR UPDATE', [key]);
    return { release: async () => { await c.query('ROLLBACK'); await c.end(); } };
  }
  if (settings.dialect === 'sqlite') throw new Error('a database server is expected');
  const c = await mysql.createConnection({ host: settings.host, port: settings.port, user: settings.user, password: settings.password ?? '', database: settings.database });
  await c.query('START TRANSACTION');
  await c.query('SELECT HOSTID FROM MULTIPLEMONITOR WHERE HOSTID = ? FOR UPDATE', [key]);
  return { release: async () => { await c.query('ROLLBACK'); await c.end(); } };
}
