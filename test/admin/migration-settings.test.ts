// issue 34 item 5: nothing a Java host configured is ignored in silence. One warning line names the
// elements read but not acted on; `restsignkey` works as `restsigkey`; a logback file's
// org.waarp.* logger names set the levels of the components doing that work.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadClientConfig, loadServerConfig } from '../../src/config/index.js';
import { loadLogbackSettings } from '../../src/config/logback.js';
import { openLogRouter } from '../../src/monitor/logging.js';
import { writeInstance } from '../cli/cli-helpers.js';

describe('settings of a Java host', () => {
  let dir: string;
  let serverXml: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-java-settings-'));
    writeInstance(dir);
    serverXml = join(dir, 'server.xml');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const patch = (from: string, to: string): void => writeFileSync(serverXml, readFileSync(serverXml, 'utf8').replace(from, to));

  it('names every element read but not acted on in one warning line', async () => {
    patch('<timeoutcon>10000</timeoutcon>', '<timeoutcon>10000</timeoutcon><usefastmd5>true</usefastmd5><checkversion>false</checkversion>');
    const lines = (await loadServerConfig(serverXml)).warnings.filter((w) => w.includes('not acted on: <'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/<limit\/usefastmd5> \(obsolete\), <limit\/checkversion>/);
    patch('<usefastmd5>true</usefastmd5><checkversion>false</checkversion>', '');
    expect((await loadServerConfig(serverXml)).warnings.filter((w) => w.includes('not acted on: <'))).toEqual([]);
  });

  it('the one line also names the elements no reader looked up: unknown, misspelt, a section of another mode, an ignored setting in use', async () => {
    patch('<timeoutcon>10000</timeoutcon>', '<timeoutcon>10000</timeoutcon><timeoutconn>5</timeoutconn>');
    patch('</config>', '<comment>for people</comment><ssl><keypath>/nowhere.jks</keypath></ssl><mystery><x>1</x></mystery><roles><role><roleid>hosta</roleid><roleset>FULLADMIN</roleset><note>n</note></role></roles></config>');
    patch('<usenossl>true</usenossl>', '<usenossl>true</usenossl><uselocalexec>true</uselocalexec>');
    const warnings = (await loadServerConfig(serverXml)).warnings;
    const lines = warnings.filter((w) => w.includes('not acted on: <'));
    expect(lines).toHaveLength(1);
    for (const path of ['limit/timeoutconn', 'ssl', 'mystery', 'roles/role/note', 'server/uselocalexec']) expect(lines[0]).toContain(`<${path}>`);
    // Read as text or looked up: not named.
    for (const path of ['comment', 'mystery/x', 'ssl/keypath', 'roles/role/roleid', 'limit/timeoutcon>']) expect(lines[0]).not.toContain(`<${path}`);
    // The ignored setting keeps its own line saying what is not done.
    expect(warnings.some((w) => w.startsWith('<server/uselocalexec>'))).toBe(true);
  });

  it('a client.xml: its unknown elements named the same way', async () => {
    const clientXml = join(dir, 'client.xml');
    writeFileSync(clientXml, readFileSync(clientXml, 'utf8').replace('<client/>', '<client><taskrunnernodb>false</taskrunnernodb><spooldir>x</spooldir></client>'));
    const lines = (await loadClientConfig(clientXml)).warnings.filter((w) => w.includes('not acted on: <'));
    expect(lines).toEqual([`${clientXml}: elements not acted on: <client/spooldir> (not read by svc-r66)`]);
  });

  it('accepts restsignkey (the seed documentation\'s spelling) as restsigkey', async () => {
    writeFileSync(join(dir, 'rest.key'), 'a-signature-key');
    patch('</config>', `<rest><restaddress>127.0.0.1</restaddress><restport>8088</restport><restauthenticated>true</restauthenticated><restsignkey>${join(dir, 'rest.key')}</restsignkey><restmethod><restname>ALL</restname><restcrud>CRUD</restcrud></restmethod></rest></config>`);
    const config = await loadServerConfig(serverXml);
    expect(config.rest[0]?.sigKey?.toString()).toBe('a-signature-key');
    expect(config.warnings.some((w) => w.includes('<rest/restsignkey>') && w.includes('accepted here as <restsigkey>'))).toBe(true);
  });
});

describe('logback files with the original logger names', () => {
  it('maps org.waarp.* packages to the components doing that work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-logback-'));
    try {
      const file = join(dir, 'logback-server.xml');
      writeFileSync(file, `<configuration>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender"><encoder><pattern>%msg%n</pattern></encoder></appender>
  <logger name="org.waarp.openr66.context.task" level="DEBUG"/>
  <logger name="org.waarp.openr66.protocol.snmp" level="ERROR"/>
  <logger name="org.waarp.openr66.protocol" level="WARN"/>
  <root level="INFO"><appender-ref ref="STDOUT"/></root>
</configuration>`);
      const router = await openLogRouter(await loadLogbackSettings(file), 'INFO');
      expect(router.levelsNow().loggers).toMatchObject({ tasks: 'DEBUG', snmp: 'ERROR', transfer: 'WARN' });
      router.setLevel('TRACE', 'org.waarp');
      expect(router.levelsNow().loggers).toMatchObject({ tasks: 'TRACE', snmp: 'TRACE', transfer: 'TRACE', business: 'TRACE', 'push-monitor': 'TRACE' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
