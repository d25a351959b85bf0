// A client without database reads its rules from the rule files of <serverhome>/conf: a rule
// using a task type this build cannot run is refused when the command starts, as a server refuses
// it at its start, with a clear message and the setup exit code, not when a transfer reaches it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTaskRegistry, LATER_TASK_TYPES } from '../../src/tasks/index.js';
import { hasNoStack, PASSWORD_HEX, runCli, sandbox, writeInstance, type Sandbox } from './cli-helpers.js';

// The task types still waiting for their module; once every type of tasks.md is implemented
// there is none and the refusal has nothing left to refuse.
const WAITING = [...LATER_TASK_TYPES].filter((type) => createTaskRegistry().get(type) === undefined);

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const entry = (id: string, port: number): string => `<entry><hostid>${id}</hostid><address>127.0.0.1</address><port>${port}</port><key>${PASSWORD_HEX}</key></entry>`;

describe.skipIf(WAITING.length === 0)('client without database: rule files', () => {
  for (const type of WAITING) {
    it(`a rule with a ${type} task stops send with exit 2 and names the task and the rule`, async () => {
      const a = writeInstance(join(box.dir, 'conf', 'hosta'), { hostId: 'hosta', db: null });
      writeFileSync(join(a.confDir, 'authent.xml'), `<authent>${entry('hosta', 6667)}${entry('hostb', 6666)}</authent>\n`);
      mkdirSync(join(a.serverHome, 'conf'), { recursive: true });
      writeFileSync(join(a.serverHome, 'conf', 'out.rule.xml'), `<rule><idrule>out</idrule><hostids/><mode>1</mode><sposttasks><tasks>
        <task><type>${type}</type><path>-to somewhere</path><delay>0</delay></task></tasks></sposttasks></rule>\n`);
      mkdirSync(join(a.serverHome, 'out'), { recursive: true });
      writeFileSync(join(a.serverHome, 'out', 'f.txt'), 'x');
      const r = await runCli('client', ['send', '-to', 'hostb', '-rule', 'out', '-file', 'f.txt'], { ...box.env, CONFDIR: a.confDir });
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toContain(`task type ${type} is not available`);
      expect(r.stderr).toContain('rule "out"');
      expect(hasNoStack(r.stdout + r.stderr)).toBe(true);
    });
  }
});
