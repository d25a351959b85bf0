// issue 34 item 2 without a database: a Java host or client in no-database mode keeps its transfers
// as XML files in arch/ (database.md §11), FILENAME relative to serverhome as in a database. The
// server and the client commands read them through the same resolution (fs/stored-path.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../../src/config/index.js';
import { openClientSession } from '../../src/cli/r66client/session.js';
import { silentLogger } from '../../src/server/logger.js';
import { ServerRuntime } from '../../src/server/runtime.js';
import { runnersDocument } from '../../src/store/index.js';
import { sandbox, writeInstance, type Instance, type Sandbox } from '../cli/cli-helpers.js';
import { transferRecord } from '../helpers/transfer-record.js';

describe('no-database mode: the Java XML runner files', () => {
  let box: Sandbox;
  let inst: Instance;
  const key = { specialId: 1693900000700n, requester: 'partnera', requested: 'hosta', ownerReq: 'hosta' };

  beforeEach(() => {
    box = sandbox();
    inst = writeInstance(join(box.dir, 'hosta'), { db: null });
    const arch = join(inst.serverHome, 'arch');
    mkdirSync(arch, { recursive: true });
    // Finished, received from a partner: nothing for the host to resume at start.
    const row = transferRecord(key.specialId, { ...key, filename: '/in/java-era.txt', updatedInfo: 6, start: new Date(0) });
    writeFileSync(join(arch, `partnera_hosta_${key.specialId}_singlerunner.xml`), runnersDocument([row], { withState: true }));
  });
  afterEach(() => box.cleanup());

  it('the server\'s store resolves the serverhome-relative FILENAME', async () => {
    const runtime = new ServerRuntime(await loadServerConfig(join(inst.confDir, 'server.xml')), silentLogger());
    await runtime.start();
    try {
      expect((await runtime.store.runner.get(key))?.filename).toBe(join(inst.serverHome, 'in', 'java-era.txt'));
    } finally {
      await runtime.stop();
    }
  });

  it('the client commands\' store too', async () => {
    const session = await openClientSession(join(inst.confDir, 'client.xml'));
    try {
      expect((await session.store.runner.get(key))?.filename).toBe(join(inst.serverHome, 'in', 'java-era.txt'));
    } finally {
      await session.close();
    }
  });
});
