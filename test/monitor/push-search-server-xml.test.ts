/**
 * Push monitoring to a search service from a whole server started on its server.xml (issue 36):
 * `<pushMonitor>` with url, index and credentials, `<monitoring><searchservice>` read and acted on,
 * records indexed in the OpenSearch test server; a bad `<searchservice>` value is refused with the
 * element named.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../../src/config/index.js';
import { loadMonitoringSettings } from '../../src/monitor/settings.js';
import { indexName } from '../../src/monitor/push/payload.js';
import { runDatabaseTool } from '../../src/server/database-tool.js';
import { ServerRuntime } from '../../src/server/runtime.js';
import { sandbox, writeInstance, type Instance, type Sandbox } from '../cli/cli-helpers.js';
import { silent } from '../helpers/hosts.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { waitFor } from '../helpers/wait.js';
import { startSearchServer, type SearchServer } from './push-search-server.js';

let box: Sandbox;
let inst: Instance;
let search: SearchServer;
let runtime: ServerRuntime | undefined;
let original: string;

beforeEach(async () => {
  box = sandbox();
  inst = writeInstance(join(box.dir, 'conf', 'hosta'));
  original = readFileSync(join(inst.confDir, 'server.xml'), 'utf8');
  // Security on, and a writer without the monitor privilege: GET / would be refused.
  search = await startSearchServer({ product: 'opensearch', version: '2.17.1', users: { r66: 's3cret' }, monitorPrivilege: false });
});
afterEach(async () => {
  await runtime?.stop();
  runtime = undefined;
  await search.close();
  box.cleanup();
});

function writeServerXml(monitoring: string): string {
  const file = join(inst.confDir, 'server.xml');
  writeFileSync(file, original.replace('</config>', `<monitoring>${monitoring}</monitoring>
    <pushMonitor><url>http://127.0.0.1:${search.port}</url><index>r66-%%WAARPHOST%%-%%DATE%%</index><username>r66</username><paswd>s3cret</paswd><delay>500</delay></pushMonitor></config>`));
  return file;
}

describe('push monitoring to a search service from server.xml', () => {
  it('<searchservice>opensearch-2: no GET /, the records are indexed', async () => {
    const file = writeServerXml('<searchservice>opensearch-2</searchservice>');
    await runDatabaseTool({ configFile: file, side: 'server', initdb: true, authFile: join(inst.confDir, 'authent.xml'), log: silent });
    runtime = new ServerRuntime(await loadServerConfig(file), silent);
    await runtime.start();
    expect(runtime.describe().join('\n')).toContain(`push monitoring to OpenSearch 2 http://127.0.0.1:${search.port} index r66-%%WAARPHOST%%-%%DATE%%`);
    await runtime.store.runner.insert(transferRecord(42n, { ownerReq: 'hosta', requester: 'hosta', requested: 'partnera', stop: new Date() }));
    const index = indexName('r66-%%WAARPHOST%%-%%DATE%%', 'hosta', new Date());
    await waitFor(() => search.indices.get(index)?.has('hosta.hosta.partnera.42') === true, { timeoutMs: 10_000, what: 'transfer 42 indexed' });
    expect(search.received.every((r) => r.method === 'POST' && r.headers['content-type'] === 'application/x-ndjson')).toBe(true);
  });

  it('a <searchservice> that names no service is a configuration error naming the element', async () => {
    const file = writeServerXml('<searchservice>solr-9</searchservice>');
    await expect(loadMonitoringSettings(file)).rejects.toThrow(/searchservice.*expected auto, elasticsearch-<major> or opensearch-<major> \(got "solr-9"\)/);
    expect((await loadMonitoringSettings(writeServerXml('<searchservice>Elasticsearch-9</searchservice>'))).searchService).toMatchObject({ product: 'elasticsearch', major: 9 });
  });
});
