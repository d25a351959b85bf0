import { createSocket } from 'node:dgram';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLogbackSettings } from '../../src/config/logback.js';
import { compilePattern } from '../../src/monitor/logging.js';
import { closeLogbackLogger, createLogbackLogger, logLevels, setLogLevel } from '../../src/server/logger.js';
import { waitFor } from '../helpers/wait.js';

let dir: string;
beforeAll(async () => { dir = await mkdtemp(path.join(tmpdir(), 'svc-logback-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

const LOGBACK = (logDir: string) => `<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <property name="LOGDIR" value="${logDir}"/>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <filter class="ch.qos.logback.classic.filter.ThresholdFilter"><level>ERROR</level></filter>
    <encoder><pattern>%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg%n</pattern></encoder>
  </appender>
  <appender name="FILE" class="ch.qos.logback.core.rolling.RollingFileAppender">
    <file>\${LOGDIR}/r66.log</file>
    <rollingPolicy class="ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy">
      <fileNamePattern>\${LOGDIR}/r66.%d{yyyy-MM-dd}.%i.log.gz</fileNamePattern>
      <maxFileSize>1KB</maxFileSize><maxHistory>2</maxHistory><totalSizeCap>1GB</totalSizeCap>
    </rollingPolicy>
    <encoder><pattern>%-5level %X{hostid} %logger: %msg%n</pattern></encoder>
  </appender>
  <appender name="TRANSFERS" class="ch.qos.logback.core.FileAppender">
    <file>\${LOGDIR}/transfers.json</file>
    <encoder class="net.logstash.logback.encoder.LogstashEncoder"/>
  </appender>
  <appender name="SYSLOG" class="ch.qos.logback.classic.net.SyslogAppender"/>
  <logger name="svc.transfer" level="DEBUG" additivity="false"><appender-ref ref="TRANSFERS"/></logger>
  <logger name="io.netty" level="ERROR"/>
  <root level="\${ROOTLEVEL:-WARN}"><appender-ref ref="STDOUT"/><appender-ref ref="FILE"/></root>
</configuration>
`;

describe('logback files honoured (docs/logging.md)', () => {
  it('patterns: date, level padding, logger, MDC, message then the other fields', () => {
    const render = compilePattern('%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} %X{hostid} - %msg%n');
    const time = new Date(2024, 2, 15, 14, 22, 33, 120).toISOString();
    expect(render({ level: 40, time, msg: 'disk low', component: 'transfer', hostid: 'hosta', free: 12, pid: 1 }))
      .toBe('14:22:33.120 [main] WARN  transfer hosta - disk low free=12\n');
    expect(compilePattern('%highlight(%.3level) %m%n')({ level: 30, msg: 'x' })).toBe('NFO x\n');
  });

  it('levels per logger, appender references and additivity, threshold filter, rolling by size with history, run-time level change', async () => {
    const logDir = path.join(dir, 'logs');
    const file = path.join(dir, 'logback-server.xml');
    await writeFile(file, LOGBACK(logDir));
    const settings = await loadLogbackSettings(file, {});
    expect(settings.rootLevel).toBe('WARN');
    expect(settings.warnings).toEqual([]);
    expect(settings.appenders.find((a) => a.name === 'SYSLOG')).toMatchObject({ kind: 'syslog', syslog: { host: 'localhost', port: 514, facility: 1, suffixPattern: '[%thread] %logger %msg' } });
    expect(settings.warnings.join('\n')).not.toMatch(/totalSizeCap/);
    expect(settings.appenders.find((a) => a.name === 'FILE')).toMatchObject({
      kind: 'rolling', file: path.join(logDir, 'r66.log'), rolling: { frequency: 'daily', size: '1024b', maxHistory: 2, compression: 'gz', totalSizeCap: 1024 ** 3 },
    });

    const consoleFile = path.join(dir, 'console.txt');
    const log = await createLogbackLogger(settings, { base: { hostid: 'hosta' }, consoleFile });
    const transfer = log.child({ component: 'transfer' });
    log.info('root info: below WARN, dropped');
    log.warn('root warn');
    log.error({ code: 'T' }, 'root error');
    transfer.debug('transfer debug');
    transfer.warn('transfer warn');
    // Lines spread in time as a server writes them (pino-roll checks the size after each write).
    for (let i = 0; i < 60; i++) {
      log.warn({ i }, `filler line ${i} to roll the file over its 1 KiB limit`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(logLevels()).toEqual({ root: 'WARN', loggers: { transfer: 'DEBUG', 'io.netty': 'ERROR' } });
    expect(setLogLevel('info')).toMatchObject({ root: 'INFO' });
    log.info('root info after the change');
    setLogLevel('ERROR', 'svc.transfer');
    transfer.warn('transfer warn after the change');
    expect(() => setLogLevel('LOUD')).toThrow(/unknown log level/);
    await closeLogbackLogger();

    const consoleText = await readFile(consoleFile, 'utf8');
    expect(consoleText).toMatch(/^\d\d:\d\d:\d\d\.\d{3} \[main\] ERROR svc - root error code=T$/m);
    expect(consoleText).not.toContain('root warn');
    const transfers = (await readFile(path.join(logDir, 'transfers.json'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { msg: string });
    expect(transfers.map((t) => t.msg)).toEqual(['transfer debug', 'transfer warn']);
    await waitFor(async () => (await readdir(logDir)).filter((f) => f.startsWith('r66')).length >= 2, { what: 'rolled files' });
    const rolled = (await readdir(logDir)).filter((f) => f.startsWith('r66')).sort();
    // maxHistory 2: at most 2 rolled files besides the active one.
    expect(rolled.length).toBeLessThanOrEqual(3);
    // The pattern ends with .gz: the rolled files are gzipped (test/monitor/log-archive.test.ts).
    const all = (await Promise.all(rolled.map(async (f) => {
      const bytes = await readFile(path.join(logDir, f));
      return f.endsWith('.gz') ? gunzipSync(bytes).toString() : bytes.toString();
    }))).join('');
    // The oldest files (with the first lines) were removed by the history limit.
    expect(all).toContain('WARN  hosta svc: filler line 59 to roll the file over its 1 KiB limit i=59');
    expect(all).not.toContain('filler line 0 ');
    expect(all).not.toContain('root info: below WARN');
    expect(all).toContain('INFO  hosta svc: root info after the change');
    expect(all).not.toContain('transfer');
  });
});

describe('SyslogAppender and AsyncAppender of a Java host\'s logback file (issue 34 item 5)', () => {
  it('sends each line as logback does (<PRI>MMM dd HH:mm:ss host suffix) over UDP; an async appender hands lines to its references; queue settings are reported', async () => {
    const udp = createSocket('udp4');
    const datagrams: string[] = [];
    udp.on('message', (m) => datagrams.push(m.toString('utf8')));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', () => resolve()));
    const port = udp.address().port;
    const logDir = path.join(dir, 'async-logs');
    const file = path.join(dir, 'logback-syslog.xml');
    await writeFile(file, `<configuration>
  <appender name="SYSLOG" class="ch.qos.logback.classic.net.SyslogAppender">
    <syslogHost>127.0.0.1</syslogHost><port>${port}</port><facility>LOCAL3</facility>
    <suffixPattern>[%thread] %logger %msg</suffixPattern>
  </appender>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>${logDir}/r66.log</file><encoder><pattern>%-5level %logger: %msg%n</pattern></encoder>
  </appender>
  <appender name="ASYNC" class="ch.qos.logback.classic.AsyncAppender">
    <queueSize>512</queueSize><appender-ref ref="FILE"/>
  </appender>
  <logger name="org.waarp.openr66.context" level="INFO"><appender-ref ref="SYSLOG"/></logger>
  <root level="WARN"><appender-ref ref="ASYNC"/></root>
</configuration>
`);
    const settings = await loadLogbackSettings(file, {});
    expect(settings.warnings).toEqual([expect.stringMatching(/appender ASYNC: <queueSize> is not acted on/)]);
    const log = await createLogbackLogger(settings, { base: { hostid: 'hosta' } });
    const transfer = log.child({ component: 'transfer' });
    transfer.info('transfer 12 done');
    transfer.error('transfer 13 failed');
    log.warn('root warn');
    await waitFor(() => datagrams.length >= 2, { what: 'two syslog datagrams' });
    await closeLogbackLogger();
    udp.close();
    // LOCAL3 = 19: INFO is 19*8+6 = 158, ERROR 19*8+3 = 155; the day is padded with a space (RFC 3164).
    const header = (pri: number): RegExp => new RegExp(`^<${pri}>[A-Z][a-z]{2} [ 1-3]\\d \\d\\d:\\d\\d:\\d\\d ${hostname().replace(/[.]/g, '\\.')} `);
    expect(datagrams[0]).toMatch(header(158));
    expect(datagrams[0]!.endsWith(' [main] transfer transfer 12 done')).toBe(true);
    expect(datagrams[1]).toMatch(header(155));
    expect(datagrams.join('\n')).not.toContain('root warn');
    // The async appender wrote through FILE: the root's WARN and, the logger being additive, the
    // transfer's lines at its own level (logback: the logger's level decides, not the root's).
    const text = await readFile(path.join(logDir, 'r66.log'), 'utf8');
    expect(text.split('\n')).toEqual(['INFO  transfer: transfer 12 done', 'ERROR transfer: transfer 13 failed', 'WARN  svc: root warn', '']);
  });

  it('refuses an unknown facility or a port out of range, naming the element', async () => {
    const file = path.join(dir, 'logback-bad-syslog.xml');
    await writeFile(file, '<configuration><appender name="S" class="ch.qos.logback.classic.net.SyslogAppender"><facility>LOCAL9</facility></appender></configuration>');
    await expect(loadLogbackSettings(file, {})).rejects.toThrow(/facility LOCAL9 is not a syslog facility/);
    await writeFile(file, '<configuration><appender name="S" class="ch.qos.logback.classic.net.SyslogAppender"><port>70000</port></appender></configuration>');
    await expect(loadLogbackSettings(file, {})).rejects.toThrow(/port 70000 is out of range/);
  });
});
