// Configuration import confinement (issue 21 item 4): files only from the host's directories, the
// same refusal whether or not a file outside exists, symlinks followed before the check, and a
// file that is not the item's XML refused without changing anything.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { ADMIN, startHarness, type Harness } from '../http/harness.js';

async function put(h: Harness, query: string) {
  const res = await fetch(`${h.base}/v2/server/config?${query}`, { method: 'PUT', headers: { authorization: ADMIN } });
  return { status: res.status, text: await res.text() };
}

describe('configuration import confinement', () => {
  let db: TestDatabase | undefined;
  let h: Harness;
  let rolesBefore: string;
  let outside: string;
  beforeAll(async () => {
    db = await testDialects()[0]!.create();
    h = await startHarness({ settings: db!.settings });
    rolesBefore = (await h.store.hostConfigs.get('hosta'))!.roles;
    outside = `${h.home}-outside`;
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'roles.xml'), '<roles><role><roleid>evil</roleid><roleset>FULLADMIN</roleset></role></roles>');
    symlinkSync(join(outside, 'roles.xml'), join(h.home, 'conf', 'link-roles.xml'));
    writeFileSync(join(h.home, 'conf', 'notxml.txt'), 'root:$6$secret:19000:0:99999:7:::\n');
    writeFileSync(join(h.home, 'conf', 'hosts-as-roles.xml'), '<authent><entry><hostid>x</hostid></entry></authent>');
    writeFileSync(join(h.home, 'arch', 'roles.xml'), '<roles><role><roleid>monitor</roleid><roleset>READONLY</roleset></role></roles>');
  });
  afterAll(async () => {
    if (outside !== undefined) rmSync(outside, { recursive: true, force: true });
    await h?.close();
    await db?.drop();
  });

  it('refuses a file outside the directories alike whether or not it exists, symlinks included', async () => {
    const existing = await put(h, 'rolesFile=/etc/passwd&purgeRoles=true');
    const missing = await put(h, 'rolesFile=/etc/no-such-file&purgeRoles=true');
    expect(existing.status).toBe(400);
    expect(missing.status).toBe(400);
    expect(existing.text.replace('/etc/passwd', 'X')).toBe(missing.text.replace('/etc/no-such-file', 'X'));
    expect((await put(h, 'rolesFile=../../etc/passwd&purgeRoles=true')).status).toBe(400);
    expect((await put(h, 'rolesFile=conf/link-roles.xml&purgeRoles=true')).status).toBe(400);
    expect((await h.store.hostConfigs.get('hosta'))!.roles).toBe(rolesBefore);
  });

  it('refuses a file that is not the item\'s XML without changing anything, and imports a good one', async () => {
    for (const file of ['conf/notxml.txt', 'conf/hosts-as-roles.xml']) {
      const r = await put(h, `rolesFile=${file}&purgeRoles=true`);
      expect(r.status, file).toBe(400);
      expect(r.text).not.toContain('secret');
    }
    expect((await h.store.hostConfigs.get('hosta'))!.roles).toBe(rolesBefore);
    expect((await put(h, `rolesFile=${encodeURIComponent(join(h.home, 'arch', 'roles.xml'))}&purgeRoles=true`)).status).toBe(200);
    expect((await h.store.hostConfigs.get('hosta'))!.roles).toContain('<roleid>monitor</roleid>');
  });
});
