// Shared by the migrate* integration tests: a node's client.xml (its identity, directories, limits
// and database: the client commands and the server share them, as an installed instance does).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Node } from '../transfer/servers.js';

export function writeClientXml(node: Node): void {
  const server = readFileSync(join(node.confDir, 'server.xml'), 'utf8');
  const section = (name: string): string => new RegExp(`<${name}>[\\s\\S]*?</${name}>`).exec(server)?.[0] ?? '';
  writeFileSync(join(node.confDir, 'client.xml'), `<?xml version="1.0" encoding="UTF-8"?>\n<config>${section('identity')}<client/>${section('directory')}${section('limit')}${section('db')}</config>\n`);
}
