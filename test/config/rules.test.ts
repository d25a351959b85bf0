import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, decodeHostIds, decodeTasks, encodeHostIds, encodeTasks, loadRuleDirectory, loadRuleFile, writeRuleFile } from '../../src/config/index.js';
import { TransferMode } from '../../src/model/rule.js';
import { FIXTURES, makeInstance, type Instance } from './instance.js';

let inst: Instance;
beforeEach(async () => { inst = await makeInstance(); });
afterEach(async () => { await inst.cleanup(); });

describe('rule files (config.md §6, samples §13.4/13.5)', () => {
  it('loads a single rule with task lists in document order', async () => {
    const [r] = await loadRuleFile(join(FIXTURES, 'send-archive.rule.xml'));
    expect(r).toMatchObject({ idRule: 'send-archive', hostIds: ['partnerA'], mode: TransferMode.SENDMODE, sendPath: '/out/partnerA', recvPath: '', updatedInfo: 0 });
    expect(r?.rPostTasks).toEqual([{ type: 'LOG', path: 'received #TRUEFULLPATH#', delay: 0 }]);
    expect(r?.sPostTasks).toEqual([{ type: 'COPY', path: '#ARCHPATH#', delay: 0, rank: 0 }, { type: 'DELETE', path: '', delay: 0, rank: 1 }]);
    expect(r?.rPreTasks).toEqual([]);
  });

  it('loads a multi-rule file', async () => {
    const rules = await loadRuleFile(join(FIXTURES, 'site.rules.xml'));
    expect(rules.map((r) => [r.idRule, r.mode, r.hostIds, r.recvPath])).toEqual([['default', 1, [], ''], ['pull', 4, ['partnerA'], '/in/pulled']]);
  });

  it('loads a directory: *.rule.xml first, then *.rules.xml, not recursive', async () => {
    const dir = join(inst.dir, 'conf');
    await mkdir(join(dir, 'sub'), { recursive: true });
    await copyFile(join(FIXTURES, 'site.rules.xml'), join(dir, 'a.rules.xml'));
    await copyFile(join(FIXTURES, 'send-archive.rule.xml'), join(dir, 'z.rule.xml'));
    await copyFile(join(FIXTURES, 'send-archive.rule.xml'), join(dir, 'sub', 'other.rule.xml'));
    await writeFile(join(dir, 'notes.xml'), '<x/>');
    expect((await loadRuleDirectory(dir)).map((r) => r.idRule)).toEqual(['send-archive', 'default', 'pull']);
  });

  it('read -> write -> read keeps every rule (both file kinds)', async () => {
    for (const name of ['send-archive.rule.xml', 'site.rules.xml']) {
      const first = await loadRuleFile(join(FIXTURES, name));
      const out = join(inst.dir, name);
      await writeRuleFile(out, first);
      expect(await loadRuleFile(out)).toEqual(first);
      expect((await readFile(out, 'utf8')).split('\n')[1]).toBe(name.endsWith('.rule.xml') ? '<rule>' : '<rules>');
    }
  });

  it('applies defaults, folds whitespace, skips unknown tasks with a warning, collapses paths', async () => {
    const f = await inst.write('t.rule.xml', `<?xml version="1.0" encoding="ISO-8859-1"?><rule><idrule>t</idrule><mode>2</mode><recvpath>in//x\\\\y</recvpath>
  <rpretasks><tasks><task><type>log</type><path>a
     b</path></task><task><type>NOPE</type><path>x</path></task><taskno><type>LOG</type><path>q</path></taskno><task><type>LOG</type></task></tasks></rpretasks></rule>`);
    const warnings: string[] = [];
    const [r] = await loadRuleFile(f, { defaultTaskDelay: 1234, onWarning: (w) => warnings.push(w) });
    expect(r?.recvPath).toBe('/in/x\\y');
    expect(r?.rPreTasks).toEqual([{ type: 'LOG', path: 'a b', delay: 1234 }]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/unknown type "NOPE"/);
  });

  it('refuses a rule without idrule or with a bad mode, and paths outside serverhome', async () => {
    const noId = await loadRuleFile(await inst.write('a.rule.xml', '<rule>\n<mode>1</mode></rule>')).catch((e: unknown) => e);
    expect(noId).toBeInstanceOf(ConfigError);
    expect((noId as Error).message).toMatch(/a\.rule\.xml:1 <rule\/idrule>: missing or empty/);
    const badMode = await loadRuleFile(await inst.write('b.rules.xml', '<rules><rule><idrule>x</idrule>\n<mode>9</mode></rule></rules>')).catch((e: unknown) => e);
    expect((badMode as Error).message).toMatch(/b\.rules\.xml:2 <rules\/rule\/mode>: 9 is out of range; expected an integer from 1 to 8 \(transfer mode\)/);
    const outside = await loadRuleFile(await inst.write('c.rule.xml', `<rule><idrule>x</idrule><mode>1</mode><sendpath>${inst.certs}</sendpath></rule>`), { serverHome: inst.home }).catch((e: unknown) => e);
    expect((outside as Error).message).toMatch(/lies outside serverhome/);
    const [inside] = await loadRuleFile(await inst.write('d.rule.xml', `<rule><idrule>x</idrule><mode>1</mode><sendpath>${inst.home}</sendpath></rule>`), { serverHome: inst.home });
    expect(inside?.sendPath).toBe('/');
  });
});

describe('rule database columns (database.md §4.2)', () => {
  it('encodes compactly with escaping and decodes back', () => {
    const tasks = [{ type: 'EXEC', path: 'a.sh x&y <z>', delay: 10 }, { type: 'LOG', path: '', delay: 0 }];
    expect(encodeHostIds(['partnerA', 'partnerB'])).toBe('<hostids><hostid>partnerA</hostid><hostid>partnerB</hostid></hostids>');
    expect(encodeHostIds([])).toBe('<hostids></hostids>');
    expect(encodeTasks([])).toBe('<tasks></tasks>');
    expect(encodeTasks(tasks)).toBe('<tasks><task><type>EXEC</type><path>a.sh x&amp;y &lt;z&gt;</path><delay>10</delay></task><task><type>LOG</type><path></path><delay>0</delay></task></tasks>');
    expect(decodeTasks(encodeTasks(tasks))).toEqual(tasks);
    expect(decodeHostIds(encodeHostIds(['a', 'b']))).toEqual(['a', 'b']);
  });

  it('accepts empty, NULL, whitespace, and the original unescaped rows', () => {
    expect(decodeHostIds(null)).toEqual([]);
    expect(decodeTasks('')).toEqual([]);
    expect(decodeHostIds('<hostids>\n  <hostid>a</hostid>\n</hostids>')).toEqual(['a']);
    expect(decodeTasks('<tasks><task><type>exec</type><path>run.sh a&b <in></path><delay>5</delay></task></tasks>')).toEqual([{ type: 'EXEC', path: 'run.sh a&b <in>', delay: 5 }]);
  });
});
