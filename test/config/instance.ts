// A temporary installation for the config tests: key files, serverhome and web admin directory,
// and the config.md §13 samples with their absolute paths pointed into it.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encryptPasswordHex } from '../../src/config/index.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/config/', import.meta.url));
export const SAMPLE_KEY = Buffer.from('d3074a6b3108a22c', 'hex');

export interface Instance {
  dir: string;
  certs: string;
  home: string;
  admin: string;
  /** Path of the sample `name` copied into the instance with its paths rewritten. */
  sample(name: string, edit?: (xml: string) => string): Promise<string>;
  /** Writes `xml` as `name` in the instance and returns its path. */
  write(name: string, xml: string): Promise<string>;
  cleanup(): Promise<void>;
}

export async function makeInstance(): Promise<Instance> {
  const dir = await mkdtemp(join(tmpdir(), 'cfg-test-'));
  const certs = join(dir, 'certs');
  const home = join(dir, 'home');
  const admin = join(dir, 'admin');
  await Promise.all([mkdir(certs), mkdir(home), mkdir(admin)]);
  await writeFile(join(certs, 'cryptokey.des'), SAMPLE_KEY);
  await writeFile(join(certs, 'restsigning.key'), Buffer.alloc(64, 7));
  await writeFile(join(certs, 'laptop.ggp'), encryptPasswordHex(SAMPLE_KEY, 'laptop-pwd'));
  const rewrite = (xml: string) => xml.replaceAll('/etc/svc/certs', certs).replaceAll('/var/lib/svc/svc1', home).replaceAll('/usr/share/svc/r66-admin', admin);
  const write = async (name: string, xml: string) => {
    const p = join(dir, name);
    await writeFile(p, xml);
    return p;
  };
  return {
    dir, certs, home, admin, write,
    async sample(name, edit = (x) => x) {
      const p = join(dir, name);
      await copyFile(join(FIXTURES, name), p);
      await writeFile(p, edit(rewrite(await readFile(p, 'utf8'))));
      return p;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
