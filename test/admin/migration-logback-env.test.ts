// issue 34 item 5: a Java host given its logback file elsewhere with -Dlogback.configurationFile
// keeps it under svc with SVC_LOGBACK_FILE (docs/logging.md): the command logs as that file says;
// a name that cannot be read is said, never ignored in silence.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli, sandbox, writeInstance, type Sandbox } from '../cli/cli-helpers.js';

let box: Sandbox | undefined;
afterEach(() => box?.cleanup());

async function instance(): Promise<{ env: NodeJS.ProcessEnv; dir: string }> {
  box = sandbox();
  const inst = writeInstance(join(box.dir, 'conf', 'hosta'));
  const env: NodeJS.ProcessEnv = { ...box.env, CONFDIR: inst.confDir };
  delete env.SVC_LOG_LEVEL;
  expect((await runCli('client', ['initdb', '-auth', join(inst.confDir, 'authent.xml'), '-dir', inst.confDir], env)).code).toBe(0);
  return { env, dir: box.dir };
}

/** A command that opens the client's session (so its logger) and fails without the network. */
const failingSend = (env: NodeJS.ProcessEnv) => runCli('client', ['send', '-to', 'nosuchhost', '-rule', 'send', '-file', 'x.txt'], env);

it('SVC_LOGBACK_FILE names a logback file elsewhere than beside client.xml: it applies', async () => {
  const { env, dir } = await instance();
  const logFile = join(dir, 'logs', 'java-era.log');
  const logback = join(dir, 'etc-waarp-logback.xml');
  writeFileSync(logback, `<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender"><file>${logFile}</file><encoder><pattern>%-5level %msg%n</pattern></encoder></appender>
  <appender name="MAIL" class="ch.qos.logback.classic.net.SMTPAppender"/>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>`);
  const r = await failingSend({ ...env, SVC_LOGBACK_FILE: logback });
  expect(r.code).not.toBe(0);
  expect(readFileSync(logFile, 'utf8')).toMatch(/^WARN {2}\S+etc-waarp-logback\.xml: appender MAIL/m);
});

it('SVC_LOGBACK_FILE naming no file: said on the command\'s log, which goes on as without it', async () => {
  const { env, dir } = await instance();
  const r = await failingSend({ ...env, SVC_LOGBACK_FILE: join(dir, 'nowhere.xml') });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('the logback file cannot be used; logging as without it');
  expect(r.stderr).toContain(join(dir, 'nowhere.xml'));
});
