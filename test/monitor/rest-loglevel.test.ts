// PUT/GET /v2/server/loglevel (docs/logging.md): the levels change without a restart; LOGCONTROL role.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, logLevels } from '../../src/server/logger.js';
import { parseJdbcUrl } from '../../src/store/index.js';
import { startHarness, type Harness } from '../http/harness.js';

const basic = (u: string, p: string): string => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('REST v2 log level', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'svc-loglevel-'));
    h = await startHarness({ settings: parseJdbcUrl('sqlite', `jdbc:sqlite:${path.join(dir, 'db.sqlite')}`) });
    createLogger({ file: path.join(dir, 'server.log'), level: 'warn' });
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads and changes the root level; refuses an unknown level and users without LOGCONTROL', async () => {
    const get = await fetch(`${h.base}/v2/server/loglevel`, { headers: { authorization: basic('monitor', 'monpwd') } });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ root: 'WARN', loggers: {} });
    const put = await fetch(`${h.base}/v2/server/loglevel?level=debug`, { method: 'PUT', headers: { authorization: basic('monitor', 'monpwd') } });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ root: 'DEBUG', loggers: {} });
    expect(logLevels().root).toBe('DEBUG');
    const bad = await fetch(`${h.base}/v2/server/loglevel?level=loud`, { method: 'PUT', headers: { authorization: basic('monitor', 'monpwd') } });
    expect(bad.status).toBe(400);
    const denied = await fetch(`${h.base}/v2/server/loglevel?level=info`, { method: 'PUT', headers: { authorization: basic('nobody', 'nopwd') } });
    expect(denied.status).toBe(403);
    expect(logLevels().root).toBe('DEBUG');
  });
});
