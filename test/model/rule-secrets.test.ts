// The one masking of task credentials (decision 0038): which options, how values are found, and the way back.
import { describe, expect, it } from 'vitest';
import type { Rule } from '../../src/model/rule.js';
import { isSecretOption, maskRuleSecrets, MaskedSecretError, maskTaskArgument, restoreMaskedSecrets, SECRET_MASK } from '../../src/model/rule-secrets.js';

const FTP = '-file #TRUEFULLPATH# -to ftp.example -port 21 -user bob -pwd Hunter2! -command put';
const S3 = '-URL http://s3 -accessKey AK1 -secretKey "s3 cr3t" -bucketName b -targetName #ORIGINALFILENAME#';

function rule(tasks: Array<[string, string]>): Rule {
  return {
    idRule: 'r', hostIds: [], mode: 1, recvPath: '', sendPath: '', archivePath: '', workPath: '',
    rPreTasks: [], rPostTasks: tasks.map(([type, path]) => ({ type, path, delay: 0 })), rErrorTasks: [], sPreTasks: [], sPostTasks: [], sErrorTasks: [], updatedInfo: 0,
  };
}

describe('task credentials', () => {
  it('names secret options and leaves ICAP header options and ordinary ones visible', () => {
    for (const n of ['pwd', 'password', 'passwd', 'pass', 'secretKey', 'accessKey', 'apiKey', 'token', 'authToken', 'clientSecret', 'passphrase']) expect(isSecretOption(n)).toBe(true);
    for (const n of ['key204', 'keyPreview', 'key200', 'file', 'user', 'mode', 'passive', 'to', 'info']) expect(isSecretOption(n)).toBe(false);
  });

  it('masks FTP -pwd, S3 -secretKey (quoted), -name=value and name=value, nothing else', () => {
    expect(maskTaskArgument(FTP)).toBe(`-file #TRUEFULLPATH# -to ftp.example -port 21 -user bob -pwd ${SECRET_MASK} -command put`);
    expect(maskTaskArgument(S3)).toBe(`-URL http://s3 -accessKey ${SECRET_MASK} -secretKey ${SECRET_MASK} -bucketName b -targetName #ORIGINALFILENAME#`);
    expect(maskTaskArgument('curl -u x --token=abc "password=p w" end')).toBe(`curl -u x --token=${SECRET_MASK} password=${SECRET_MASK} end`);
    expect(maskTaskArgument('-file a -key204 X-Infection -string204 ok')).toBe('-file a -key204 X-Infection -string204 ok');
    expect(maskTaskArgument('-pwd')).toBe('-pwd');
    const masked = maskRuleSecrets(rule([['FTP', FTP], ['LOG', 'hello']]));
    expect(masked.rPostTasks.map((t) => t.path).join('\n')).not.toMatch(/Hunter2/);
    expect(masked.rPostTasks[1]!.path).toBe('hello');
  });

  it('puts stored values back for masks sent back, keeps new values, refuses a mask with nothing behind it', () => {
    const stored = rule([['FTP', FTP], ['S3PUT', S3]]);
    const back = maskRuleSecrets(stored);
    expect(restoreMaskedSecrets(back, stored)).toEqual(stored);
    // An edited argument (another port) keeps the stored password; a new password replaces it.
    const edited = rule([['FTP', maskTaskArgument(FTP).replace('-port 21', '-port 2121')], ['S3PUT', S3.replace('"s3 cr3t"', 'n3w')]]);
    const restored = restoreMaskedSecrets(edited, stored);
    expect(restored.rPostTasks[0]!.path).toBe(FTP.replace('-port 21', '-port 2121'));
    expect(restored.rPostTasks[1]!.path).toContain('-secretKey n3w');
    // Tasks reordered: found by their masked text.
    const swapped = rule([['S3PUT', maskTaskArgument(S3)], ['FTP', maskTaskArgument(FTP)]]);
    expect(restoreMaskedSecrets(swapped, stored).rPostTasks.map((t) => t.path)).toEqual([S3, FTP]);
    expect(() => restoreMaskedSecrets(back, undefined)).toThrow(MaskedSecretError);
    expect(() => restoreMaskedSecrets(rule([['EXEC', `x -pwd ${SECRET_MASK}`]]), stored)).toThrow(/rPostTasks\[0\].*-pwd/);
  });
});
