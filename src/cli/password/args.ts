// Argument parsing of svc-password: the original tool's single-dash, case-insensitive options
// (config.md §10.4). Kept here, self-contained, because no other command shares this syntax.

/** What the command line asked for. */
export interface PasswordOptions {
  keyIn: string | undefined;
  keyOut: string | undefined;
  blowfish: boolean;
  password: string | undefined;
  cryptedPassword: string | undefined;
  passwordIn: string | undefined;
  passwordOut: string | undefined;
  clear: boolean;
}

/** A command line the tool refuses (exit code 2, usage on stderr). */
export class PasswordUsageError extends Error {}

export const PASSWORD_USAGE = [
  'Usage: svc-password (-ki KEYFILE | -ko NEWKEYFILE) [-des | -blf] [-pwd PASSWORD | -cpwd CRYPTEDHEX | -pi FILE.ggp] [-po FILE.ggp] [-clear]',
  '  -ki FILE     existing key file to use',
  '  -ko FILE     generate a new key and write it to FILE (then used as -ki)',
  '  -des         DES key (default; the only kind R66 hosts use)',
  '  -blf         Blowfish key (not supported by svc-password)',
  '  -pwd PWD     clear password to encrypt (needs -po or -pi)',
  '  -cpwd HEX    already encrypted password to check / save again (needs -po or -pi)',
  '  -pi FILE     read the encrypted password from a .ggp file',
  '  -po FILE     write the encrypted password to a .ggp file (prompts when no password is given)',
  '  -clear       also print the clear password',
].join('\n');

const WITH_VALUE: Record<string, keyof PasswordOptions> = {
  '-ki': 'keyIn', '-ko': 'keyOut', '-pwd': 'password', '-cpwd': 'cryptedPassword', '-pi': 'passwordIn', '-po': 'passwordOut',
};

export function parsePasswordArgs(argv: readonly string[]): PasswordOptions {
  const o: PasswordOptions = {
    keyIn: undefined, keyOut: undefined, blowfish: false, password: undefined, cryptedPassword: undefined,
    passwordIn: undefined, passwordOut: undefined, clear: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const name = arg.toLowerCase();
    const key = WITH_VALUE[name];
    if (key !== undefined) {
      const value = argv[i + 1];
      if (value === undefined) throw new PasswordUsageError(`option ${arg} needs a value`);
      (o as unknown as Record<string, string>)[key] = value;
      i++;
    } else if (name === '-des') o.blowfish = false;
    else if (name === '-blf') o.blowfish = true;
    else if (name === '-clear') o.clear = true;
    else throw new PasswordUsageError(`unknown argument ${arg}`);
  }
  if (o.keyIn === undefined && o.keyOut === undefined) throw new PasswordUsageError('one of -ki or -ko is required');
  if ((o.password !== undefined || o.cryptedPassword !== undefined) && o.passwordIn === undefined && o.passwordOut === undefined) {
    throw new PasswordUsageError('-pwd and -cpwd need -po (or -pi)');
  }
  return o;
}
