// Settings read but not acted on are each named in a start-up warning (issue 22 item 3).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadClientConfig, loadServerConfig } from '../../src/config/index.js';
import { IGNORED_SERVER_SETTINGS } from '../../src/config/ignored-settings.js';
import { makeInstance, type Instance } from './instance.js';

let inst: Instance;
beforeEach(async () => { inst = await makeInstance(); });
afterEach(async () => { await inst.cleanup(); });

describe('ignored settings', () => {
  it('names each element in use, with its value, in the configuration warnings', async () => {
    const file = await inst.sample('server.xml', (x) => x.replace('<multiplemonitors>1</multiplemonitors>', '<multiplemonitors>3</multiplemonitors><uselocalexec>true</uselocalexec>'));
    await mkdir(join(inst.home, 'conf'), { recursive: true });
    await writeFile(join(inst.home, 'conf', 'logback-server.xml'), '<configuration><root level="DEBUG"/></configuration>');
    const { warnings } = await loadServerConfig(file);
    const named = (element: string) => warnings.filter((w) => w.includes(`<${element}>`));
    // The web areas serve these now (src/web).
    expect(named('network/serverhttpport')).toHaveLength(0);
    expect(named('network/serverhttpsport')).toHaveLength(0);
    // src/monitor pushes and runs the SNMP agent.
    expect(named('pushMonitor')).toHaveLength(0);
    expect(named('server/snmpconfig')).toHaveLength(0);
    // A cluster runs with multiplemonitors > 1 (src/cluster); a LocalExec daemon is not used.
    expect(named('server/multiplemonitors')).toHaveLength(0);
    expect(named('server/uselocalexec')[0]).toContain('> 127.0.0.1:');
    // The server applies its logback file (src/monitor/logging.ts).
    expect(named('logback-server.xml')).toHaveLength(0);
    expect(named('limit/usethrift')).toHaveLength(0);
  });

  it('no longer names the client logback file: client commands apply it (test/monitor/client-logback.test.ts)', async () => {
    const file = await inst.sample('client.xml');
    await writeFile(join(inst.dir, 'logback-client.xml'), '<configuration/>');
    const { warnings } = await loadClientConfig(file);
    expect(warnings.filter((w) => w.includes('<logback-client.xml>'))).toEqual([]);
  });

  it('says nothing for a setting not in use', async () => {
    const file = await inst.sample('server.xml', (x) => x
      .replace(/<serverhttpport>\d+<\/serverhttpport>/, '<serverhttpport>0</serverhttpport>')
      .replace(/<serverhttpsport>\d+<\/serverhttpsport>/, '<serverhttpsport>-1</serverhttpsport>')
      .replace(/<pushMonitor>[\s\S]*<\/pushMonitor>/, ''));
    const { warnings } = await loadServerConfig(file);
    expect(warnings.filter((w) => w.includes('not acted on'))).toEqual([]);
  });

  it('each entry names an element and its effect once', () => {
    const elements = IGNORED_SERVER_SETTINGS.map((s) => s.element);
    expect(new Set(elements).size).toBe(elements.length);
    for (const s of IGNORED_SERVER_SETTINGS) expect(s.effect).not.toBe('');
  });
});
