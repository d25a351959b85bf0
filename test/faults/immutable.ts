/**
 * Whether files in the temporary directory can be made immutable (`chattr +i`: root on a file
 * system with attributes, as CI's ext4): the only way to make a file unwritable for root, and the
 * one that turned SQLite's next write of its -shm mapping into a SIGBUS (issue 32).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let known: boolean | undefined;

export function canMakeImmutable(): boolean {
  if (known !== undefined) return known;
  known = false;
  if (process.getuid?.() !== 0) return known;
  const dir = mkdtempSync(join(tmpdir(), 'svc-chattr-'));
  try {
    writeFileSync(join(dir, 'f'), '');
    execFileSync('chattr', ['+i', join(dir, 'f')], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', join(dir, 'f')], { stdio: 'ignore' });
    known = true;
  } catch {
    // No attributes here (tmpfs, overlay): the tests that need them are skipped.
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return known;
}
