// Issue 32 item 6: every number read from a configuration file or a command option is held to its
// entry of the range table; beyond it the load stops naming the element and the range.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkRange, ConfigError, CONFIG_RANGES, describeRange, loadAuthentFile, loadClientConfig, loadLimitFile, loadRuleFile, loadServerConfig, loadSnmpConfig,
  OPTION_RANGES, type NumberRange,
} from '../../src/config/index.js';
import { SectionReader } from '../../src/config/values.js';
import { parseXml } from '../../src/config/xml-read.js';
import { loadLogbackSettings } from '../../src/config/logback.js';
import { loadMonitoringSettings } from '../../src/monitor/settings.js';
import { makeInstance, SAMPLE_KEY, type Instance } from './instance.js';

const below = (r: NumberRange): string => (r.kind === 'double' ? String(Number(r.min) - 0.5) : String(BigInt(r.min) - 1n));
const above = (r: NumberRange): string => (r.kind === 'double' ? String(Number(r.max) + 0.5) : String(BigInt(r.max) + 1n));

/** Reads `<section><element>text</element></section>` through SectionReader with the entry's type. */
function readThrough(key: string, range: NumberRange, text: string): number {
  const [section, element] = key.split('/') as [string, string];
  const doc = parseXml('t.xml', `<root>\n<${section}>\n<${element}>${text}</${element}></${section}></root>`, ['root']);
  const sec = new SectionReader('t.xml', doc.root, 'root').section(section);
  if (range.kind === 'double') return sec.double(element, -1);
  return range.kind === 'long' ? sec.long(element, -1) : sec.int(element, -1);
}

describe('the range table', () => {
  it.each(Object.entries(CONFIG_RANGES))('%s: both ends accepted, one step beyond refused with the element and the range', (key, range) => {
    expect(readThrough(key, range, String(range.min))).toBe(Number(range.min));
    expect(readThrough(key, range, String(range.max))).toBe(Number(range.max));
    for (const bad of [below(range), above(range)]) {
      const err = (() => { try { readThrough(key, range, bad); } catch (e) { return e; } return undefined; })();
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toBe(`t.xml:3 <root/${key}>: ${bad} is out of range; expected ${describeRange(range)}`);
    }
    // Absent or empty takes the default; the type's syntax is the original's.
    expect(readThrough(key, range, '')).toBe(-1);
    if (range.kind !== 'double') expect(() => readThrough(key, range, `${String(range.min)}.5`)).toThrow(/is not an integer/);
  });

  it.each(Object.entries(OPTION_RANGES))('option %s: its ends accepted, beyond refused', (_key, range) => {
    expect(checkRange(String(range.min), range)).toMatchObject({ ok: true });
    expect(checkRange(String(range.max), range)).toMatchObject({ ok: true });
    expect(checkRange(below(range), range)).toEqual({ ok: false, notNumber: false, message: `${below(range)} is out of range; expected ${describeRange(range)}` });
    expect(checkRange(above(range), range)).toMatchObject({ ok: false, notNumber: false });
    expect(checkRange('1e23', range)).toMatchObject({ ok: false, notNumber: false });
    expect(checkRange('ten', range)).toMatchObject({ ok: false, notNumber: true });
  });

  it('keeps transfer ids exact beyond 2^53 and refuses Long.MIN_VALUE (the "no id" value)', () => {
    const range = OPTION_RANGES['initdb -minimalSeq'];
    expect(checkRange('9223372036854775807', range)).toEqual({ ok: true, value: 9223372036854775807n });
    expect(checkRange('-5', range)).toEqual({ ok: true, value: -5n });
    expect(checkRange('-9223372036854775808', range)).toMatchObject({ ok: false });
    expect(checkRange('1e24', range)).toMatchObject({ ok: false, message: '1e24 is not an integer; expected an integer from -9223372036854775807 to 9223372036854775807 (transfer id)' });
  });

  it('docs/security.md lists every entry with its range', () => {
    const doc = readFileSync(fileURLToPath(new URL('../../docs/security.md', import.meta.url)), 'utf8');
    for (const [key, r] of [...Object.entries(CONFIG_RANGES), ...Object.entries(OPTION_RANGES)]) {
      expect(doc, key).toContain(`| \`${key}\` |`);
      expect(doc.split('\n').find((l) => l.startsWith(`| \`${key}\` |`)), key).toContain(`${r.kind === 'double' ? 'number' : 'integer'} ${r.min} .. ${r.max} |`);
    }
  });

  it('an element without an entry is held to its Java type', () => {
    const doc = parseXml('t.xml', '<root><x><n>2147483648</n><l>9223372036854775808</l><d>1e400</d></x></root>', ['root']);
    const sec = new SectionReader('t.xml', doc.root, 'root').section('x');
    expect(() => sec.int('n', 0)).toThrow(/<root\/x\/n>: 2147483648 is out of range; expected an integer from -2147483648 to 2147483647$/);
    expect(() => sec.long('l', 0)).toThrow(/9223372036854775808 is out of range/);
    expect(() => sec.double('d', 0)).toThrow(/1e400 is out of range/);
  });
});

describe('every reader refuses an out-of-range value naming the element and the range', () => {
  let inst: Instance;
  beforeEach(async () => { inst = await makeInstance(); });
  afterEach(async () => { await inst.cleanup(); });

  const refusal = async (load: Promise<unknown>): Promise<string> => {
    const err = await load.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  };

  it('server.xml: limit, security, network, rest, pushMonitor', async () => {
    const withXml = (extra: string) => inst.sample('server.xml', (x) => x.replace(/<limit>[\s\S]*?<\/limit>/, '').replace('</config>', `${extra}</config>`));
    expect(await refusal(loadServerConfig(await withXml('<limit><blocksize>2147483647999</blocksize></limit>'))))
      .toMatch(/server\.xml:\d+ <config\/limit\/blocksize>: 2147483647999 is out of range; expected an integer from 100 to 16777216 \(bytes\)$/);
    expect(await refusal(loadServerConfig(await withXml('<security><maxconnections>1e23</maxconnections></security>'))))
      .toMatch(/<config\/security\/maxconnections>: 1e23 is not an integer; expected an integer from 1 to 100000 \(connections\)$/);
    expect(await refusal(loadServerConfig(await withXml('<limit><timeoutcon>-1</timeoutcon></limit>')))).toMatch(/<config\/limit\/timeoutcon>: -1 is out of range; expected an integer from 10 to 86400000 \(ms\)/);
    expect(await refusal(loadServerConfig(await withXml('<limit><cpulimit>1.5</cpulimit><usecpulimit>true</usecpulimit></limit>')))).toMatch(/<config\/limit\/cpulimit>: 1\.5 is out of range; expected a number from 0 to 1/);
    const rest = await inst.sample('server.xml', (x) => x.replace('<resttimelimit>30000</resttimelimit>', '<resttimelimit>-7</resttimelimit>'));
    expect(await refusal(loadServerConfig(rest))).toMatch(/<config\/rest\/resttimelimit>: -7 is out of range/);
    // In range: the original's normalisations still apply.
    const ok = await loadServerConfig(await withXml('<limit><runlimit>1</runlimit><connlimit>50</connlimit></limit>'));
    expect(ok.limits).toMatchObject({ runLimit: 2, connLimit: 0 });
  });

  it('client.xml: spooled watcher and limit', async () => {
    const f = await inst.sample('client.xml', (x) => x.replace('</config>', `<spooleddaemon><stopfile>${join(inst.dir, 'stop')}</stopfile><spooled><to>p</to><rule>r</rule><statusfile>${join(inst.dir, 's')}</statusfile><directory>${inst.dir}</directory><block>99</block></spooled></spooleddaemon></config>`));
    expect(await refusal(loadClientConfig(f))).toMatch(/<config\/spooleddaemon\/spooled\/block>: 99 is out of range; expected an integer from 100 to 16777216 \(bytes\)/);
  });

  it('authent.xml: a port beyond 65535 stops the load; text skips the entry as the original does', async () => {
    const big = await inst.write('a.xml', '<authent>\n<entry><hostid>p</hostid><address>h</address>\n<port>70000</port></entry></authent>');
    expect(await refusal(loadAuthentFile(big, SAMPLE_KEY))).toMatch(/a\.xml:3 <authent\/entry\/port>: 70000 is out of range; expected an integer from -1 to 65535 \(TCP port\)/);
    const text = await inst.write('b.xml', '<authent><entry><hostid>p</hostid><address>h</address><port>x</port></entry></authent>');
    expect((await loadAuthentFile(text, SAMPLE_KEY)).warnings).toEqual([expect.stringMatching(/entry p skipped: <port> missing or not an integer/)]);
  });

  it('rule files, snmpconfig.xml, the limit file, <monitoring>, logback files', async () => {
    const rule = await inst.write('r.rule.xml', '<rule><idrule>r</idrule><mode>1</mode><sposttasks><tasks><task><type>LOG</type><path>x</path><delay>99999999999</delay></task></tasks></sposttasks></rule>');
    expect(await refusal(loadRuleFile(rule))).toMatch(/<rule\/sposttasks\/tasks\/task\/delay>: 99999999999 is out of range; expected an integer from 0 to 2147483647 \(ms\)/);
    const snmp = await inst.write('s.xml', '<snmpconfig><config><trapinformlevel>9</trapinformlevel></config></snmpconfig>');
    expect(await refusal(loadSnmpConfig(snmp))).toMatch(/<snmpconfig\/config\/trapinformlevel>: 9 is out of range; expected an integer from 0 to 5/);
    const limit = await inst.write('l.xml', '<config><limit><runlimit>50001</runlimit></limit></config>');
    expect(await refusal(loadLimitFile(limit))).toMatch(/<config\/limit\/runlimit>: 50001 is out of range; expected an integer from 0 to 50000/);
    const mon = await inst.sample('server.xml', (x) => x.replace('</config>', '<monitoring><metricsport>65536</metricsport></monitoring></config>'));
    expect(await refusal(loadMonitoringSettings(mon, {}))).toMatch(/<config\/monitoring\/metricsport>: 65536 is out of range; expected an integer from 0 to 65535/);
    const logback = await inst.write('logback-server.xml', '<configuration><appender name="R" class="ch.qos.logback.core.rolling.RollingFileAppender"><file>/tmp/r.log</file><rollingPolicy class="x"><fileNamePattern>/tmp/r.%d.log</fileNamePattern><maxHistory>1e23</maxHistory></rollingPolicy></appender><root level="info"><appender-ref ref="R"/></root></configuration>');
    expect(await refusal(loadLogbackSettings(logback, {}))).toMatch(/<appender R\/rollingPolicy\/maxHistory>: 1e23 is not an integer; expected an integer from 0 to 100000 \(files\)/);
  });
});
