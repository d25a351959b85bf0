// A fresh SQLite store owned by RECORD_OWNER and a scratch directory, for tests of RUNNER rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/index.js';
import { testDialects } from './databases.js';
import { RECORD_OWNER } from './transfer-record.js';

export interface RecordStore {
  store: Store;
  dir: string;
  close(): Promise<void>;
}

export async function openRecordStore(prefix: string): Promise<RecordStore> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = (await testDialects()[0]!.create())!;
  const store = await openStore(db.settings, { hostId: RECORD_OWNER });
  await store.initSchema({ hostId: RECORD_OWNER });
  return {
    store, dir,
    close: async () => {
      await store.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
