/** Every exit-code table in one module (issue 20 item 5), the transfer's derived from the domain error. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeOf, exitCodeOfError, SEND_EXIT } from '../../src/cli/exit-codes.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { R66Error } from '../../src/model/r66-error.js';
import { ROOT } from './cli-helpers.js';

describe('exit codes', () => {
  it('a failed transfer exits with the ordinal of its typed error, whatever threw it', () => {
    expect(exitCodeOf(ErrorCode.CompleteOk)).toBe(4);
    expect(exitCodeOfError(new R66Error(ErrorCode.FileNotFound, 'no such file'))).toBe(27);
    expect(exitCodeOfError(new R66Error(ErrorCode.FileNotAllowed, 'refused'))).toBe(32);
    expect(exitCodeOfError(new Error('a bug'))).toBe(ErrorCode.Internal.ordinal);
    expect(SEND_EXIT.unknown).toBe(ErrorCode.Unknown.ordinal);
  });

  it('no other module of the commands declares an exit-code table or constant', () => {
    const dir = path.join(ROOT, 'src', 'cli');
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'exit-codes.ts')
      .filter((f) => /^(export )?const ([A-Z_]*_EXIT|EXIT_[A-Z_]+) = /m.test(readFileSync(path.join(dir, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
