// svc-r66client with a logback-client.xml beside client.xml: its file appender, pattern and levels
// apply to the command's own log; console appenders write to stderr, stdout keeps the results only.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, sandbox, writeInstance, type Sandbox } from '../cli/cli-helpers.js';

let box: Sandbox | undefined;
afterEach(() => box?.cleanup());

/** A client instance (hosta) with this logback-client.xml beside client.xml (given the sandbox directory), its database initialised; its environment. */
async function clientWith(logback: (dir: string) => string): Promise<NodeJS.ProcessEnv> {
  box = sandbox();
  const inst = writeInstance(join(box.dir, 'conf', 'hosta'));
  const env: NodeJS.ProcessEnv = { ...box.env, CONFDIR: inst.confDir };
  delete env.SVC_LOG_LEVEL;
  writeFileSync(join(inst.confDir, 'logback-client.xml'), logback(box.dir));
  expect((await runCli('client', ['initdb', '-auth', join(inst.confDir, 'authent.xml'), '-dir', inst.confDir], env)).code).toBe(0);
  return env;
}

/** A command that opens the client's session (so its logger) and fails without the network. */
const failingSend = (env: NodeJS.ProcessEnv) => runCli('client', ['send', '-to', 'nosuchhost', '-rule', 'send', '-file', 'x.txt'], env);

describe('client commands apply logback-client.xml', () => {
  it('writes the command\'s lines to the file appender with the pattern, the console appender to stderr', async () => {
    let logFile = '';
    const env = await clientWith((dir) => `<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender"><file>${(logFile = join(dir, 'logs', 'client.log'))}</file>
    <encoder><pattern>%-5level %logger - %msg%n</pattern></encoder></appender>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>CONSOLE %level %msg%n</pattern></encoder></appender>
  <appender name="MAIL" class="ch.qos.logback.classic.net.SMTPAppender"/>
  <root level="INFO"><appender-ref ref="FILE"/><appender-ref ref="STDOUT"/></root>
</configuration>`);
    const r = await failingSend(env);
    expect(r.code).not.toBe(0);
    // What the logback file asks for and cannot be done is itself logged, through the file's appenders.
    const text = readFileSync(logFile, 'utf8');
    expect(text).toMatch(/^WARN {2}svc - \S+logback-client\.xml: appender MAIL: class ch\.qos\.logback\.classic\.net\.SMTPAppender is not supported/m);
    expect(r.stderr).toMatch(/^CONSOLE WARN \S+logback-client\.xml: appender MAIL/m);
    expect(r.stdout).not.toContain('CONSOLE');
    expect(r.stderr).not.toContain('"msg":');
    // No longer reported as a setting that is not acted on.
    expect(`${r.stdout}${r.stderr}${text}`).not.toContain('<logback-client.xml>');
  });

  it('a logback file that does not load: the command logs as without it, with a warning naming the file', async () => {
    const r = await failingSend(await clientWith(() => '<configuration><root level="INFO"'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the logback file cannot be used; logging as without it');
    expect(r.stdout).not.toContain('logback');
  });
});
