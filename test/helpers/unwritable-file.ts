/**
 * Makes a file unwritable for this process, root included: chmod for an ordinary user, the
 * immutable attribute (`chattr +i`) for root, who ignores modes. CI runs as root, where a chmod-only
 * test would be skipped for ever. Returns the undo (the temporary directory must stay removable).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { canMakeImmutable } from '../faults/immutable.js';

const isRoot = process.getuid?.() === 0;

/** Whether {@link makeUnwritable} can work here (false only for root on a file system without attributes). */
export function canMakeUnwritable(): boolean {
  return !isRoot || canMakeImmutable();
}

export function makeUnwritable(file: string): () => void {
  if (!isRoot) {
    chmodSync(file, 0o444);
    return () => chmodSync(file, 0o644);
  }
  execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
  return () => execFileSync('chattr', ['-i', file], { stdio: 'ignore' });
}
