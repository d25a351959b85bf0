import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findLogbackFile, loadLimitFile, loadLogbackConfig, loadSnmpConfig, writeLimitFile, writeSnmpConfig } from '../../src/config/index.js';
import { FIXTURES, makeInstance, type Instance } from './instance.js';

let inst: Instance;
beforeEach(async () => { inst = await makeInstance(); });
afterEach(async () => { await inst.cleanup(); });

describe('snmpconfig.xml (config.md §9, sample §13.6)', () => {
  it('loads the sample and round-trips', async () => {
    const c = await loadSnmpConfig(join(FIXTURES, 'snmpconfig.xml'));
    expect(c).toMatchObject({ localAddresses: ['udp:0.0.0.0/2001'], nbThread: 4, filtered: false, useTrap: true, trapInformLevel: 3, warnings: [] });
    expect(c.targets).toEqual([{ name: 'nms-v2', domain: 'UdpIpv4', address: '192.0.2.10/162', timeout: 200, retries: 1, isV2: true }]);
    expect(c.securities).toEqual([{ name: 'svcuser', authProtocol: 'SHA', authPassphrase: 'authpassphrase', privProtocol: 'PAES128', privPassphrase: 'privpassphrase' }]);
    const out = join(inst.dir, 'snmp.xml');
    await writeSnmpConfig(out, c);
    expect({ ...(await loadSnmpConfig(out)), file: '' }).toEqual({ ...c, file: '' });
  });

  it('skips targets with a wrongly cased domain (T13) and applies defaults', async () => {
    const f = await inst.write('s.xml', `<snmpconfig><config><nbthread>0</nbthread></config><targets>
<target><name>a</name><domain>UdpIpV4</domain><address>1.2.3.4/162</address></target>
<target><name>b</name><domain>TcpIpv6</domain><address>::1/162</address><timeout>5</timeout><retries>0</retries></target>
</targets><securities><security><securityname>u</securityname><securityauthprotocol>SHA256</securityauthprotocol></security></securities></snmpconfig>`);
    const c = await loadSnmpConfig(f);
    expect(c.localAddresses).toEqual(['udp:0.0.0.0/161']);
    expect(c.nbThread).toBe(4);
    expect(c.targets).toEqual([{ name: 'b', domain: 'TcpIpv6', address: '::1/162', timeout: 100, retries: 1, isV2: true }]);
    expect(c.securities).toEqual([]);
    expect(c.warnings).toHaveLength(2);
    expect(c.warnings[0]).toMatch(/s\.xml:2: target a skipped: <domain>/);
  });
});

describe('limit file (config.md §4.5, sample §13.7)', () => {
  it('loads the sample with defaults and round-trips', async () => {
    const c = await loadLimitFile(join(FIXTURES, 'limit.xml'));
    expect(c).toMatchObject({ hostId: 'svc1', sessionLimit: 0, globalLimit: 104857600, delayLimit: 1000, runLimit: 1000, delayCommand: 5000, delayRetry: 30000 });
    const out = join(inst.dir, 'limit.xml');
    await writeLimitFile(out, c);
    expect({ ...(await loadLimitFile(out)), file: '' }).toEqual({ ...c, file: '' });
  });
});

describe('logback files (config.md §7)', () => {
  it('locates logback-server.xml and reads the root level and a plain file appender', async () => {
    await writeFile(join(inst.dir, 'logback-server.xml'), `<configuration>
  <appender name="F" class="ch.qos.logback.core.FileAppender"><file>\${LOGDIR}/x.log</file></appender>
  <appender name="G" class="ch.qos.logback.core.rolling.RollingFileAppender"><file>/var/log/svc/svc1/r66.log</file></appender>
  <root level="warn"><appender-ref ref="F"/></root></configuration>`);
    const f = await findLogbackFile(inst.dir, 'server');
    expect(f).toBe(join(inst.dir, 'logback-server.xml'));
    expect(await findLogbackFile(inst.dir, 'client')).toBeUndefined();
    expect(await loadLogbackConfig(f ?? '')).toEqual({ file: f, level: 'WARN', logFile: '/var/log/svc/svc1/r66.log' });
  });
});
