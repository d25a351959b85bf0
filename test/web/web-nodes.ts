// hosta (with both web areas on free loopback ports, a self-signed admin certificate) and hostb, two
// real svc-r66server processes, for the browser tests.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src/server/ports.js';
import { writeSelfSignedPem } from '../../src/web/admin/self-signed.js';
import type { Sandbox } from '../cli/cli-helpers.js';
import { startNode, writeNodePair, type Node, type PairNodeOptions } from '../transfer/servers.js';

export interface WebPair {
  a: Node;
  b: Node;
  /** http://127.0.0.1:<port> of hosta's monitoring area. */
  monitor: string;
  /** https://127.0.0.1:<port> of hosta's administration area. */
  admin: string;
}

export async function startWebPair(box: Sandbox, optsA: PairNodeOptions, optsB: PairNodeOptions): Promise<WebPair> {
  const { a, b } = await writeNodePair(box, optsA, optsB);
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const pem = join(a.confDir, 'admin-web.pem');
  await writeSelfSignedPem(pem, 'pem-pass');
  const serverXml = join(a.confDir, 'server.xml');
  writeFileSync(serverXml, readFileSync(serverXml, 'utf8')
    .replace('<serverhttpport>0</serverhttpport><serverhttpsport>0</serverhttpsport>',
      `<serverhttpport>${httpPort}</serverhttpport><serverhttpaddresses>127.0.0.1</serverhttpaddresses><serverhttpsport>${httpsPort}</serverhttpsport><serverhttpsaddresses>127.0.0.1</serverhttpsaddresses>`)
    .replace('</httpadmin>', `</httpadmin><admkeypath>${pem}</admkeypath><admkeystorepass>pem-pass</admkeystorepass><admkeypass>pem-pass</admkeypass>`));
  await startNode(b);
  await startNode(a);
  return { a, b, monitor: `http://127.0.0.1:${httpPort}`, admin: `https://127.0.0.1:${httpsPort}` };
}
