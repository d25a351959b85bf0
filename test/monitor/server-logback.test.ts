// svc-r66server start with a logback-server.xml beside server.xml: its file appender, pattern and
// levels are applied to the server process's own log.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../cli/cli-helpers.js';
import { instanceForEachTest } from '../helpers/instance-each.js';
import { waitFor } from '../helpers/wait.js';

const t = instanceForEachTest();

describe('the server applies logback-server.xml', () => {
  it('writes its own lines to the file appender with the pattern, at the configured levels', async () => {
    const logFile = join(t.box.dir, 'logs', 'server.log');
    writeFileSync(join(t.inst.confDir, 'logback-server.xml'), `<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender"><file>${logFile}</file>
    <encoder><pattern>%-5level [%X{hostid}] %logger - %msg%n</pattern></encoder></appender>
  <appender name="MAIL" class="ch.qos.logback.classic.net.SMTPAppender"/>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>`);
    expect((await runCli('server', ['initdb', '-auth', join(t.inst.confDir, 'authent.xml'), '-dir', t.inst.confDir], t.env)).code).toBe(0);
    const server = spawnCli('server', ['start'], t.env);
    t.track(server);
    await waitFor(() => server.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 30_000 });
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    expect(existsSync(logFile)).toBe(true);
    const text = readFileSync(logFile, 'utf8');
    expect(text).toMatch(/^INFO {2}\[hosta\] svc - server started components=/m);
    expect(text).toMatch(/^WARN {2}\[hosta\] svc - \S+logback-server\.xml: appender MAIL: class ch\.qos\.logback\.classic\.net\.SMTPAppender is not supported/m);
    expect(text).toContain('server stopped');
    // The lines went to the file only: nothing JSON on stdout.
    expect(server.stdout()).not.toContain('"msg":"server started"');
  });
});
