// svc-password (config.md §10.4, cli.md §7): create a DES cryptokey, encrypt a password to hex or
// a .ggp file, decrypt one. Exit codes as the original: 0 OK, 2 bad options, 4 no password
// entered; any other failure (unreadable key, bad hex) 1 with a one-line message, no stack trace.
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import {
  ConfigError, decryptPasswordHex, encryptPasswordHex, generateCryptoKey, readCryptoKeyFile, readGgpHex, writeCryptoKeyFile, writeGgpFile,
} from '../../config/index.js';
import { parsePasswordArgs, PASSWORD_USAGE, PasswordUsageError, type PasswordOptions } from './args.js';
import { PASSWORD_EXIT } from '../exit-codes.js';

export interface PasswordIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}


/** Reads one line from `input` (without its line ending); '' at end of input. */
async function readLine(input: Readable): Promise<string> {
  const rl = createInterface({ input, terminal: false });
  try {
    for await (const line of rl) return line;
    return '';
  } finally {
    rl.close();
  }
}

async function loadKey(o: PasswordOptions): Promise<Buffer> {
  if (o.keyOut !== undefined) {
    const key = generateCryptoKey();
    await writeCryptoKeyFile(o.keyOut, key);
    return key;
  }
  return readCryptoKeyFile(o.keyIn as string);
}

/** Runs the tool; returns the exit code. */
export async function runPasswordTool(argv: readonly string[], io: PasswordIo): Promise<number> {
  let o: PasswordOptions;
  try {
    o = parsePasswordArgs(argv);
  } catch (err) {
    if (!(err instanceof PasswordUsageError)) throw err;
    io.stderr.write(`svc-password: ${err.message}\n${PASSWORD_USAGE}\n`);
    return PASSWORD_EXIT.USAGE;
  }
  if (o.blowfish) {
    // R66 hosts only ever use DES; Blowfish is absent from Node's OpenSSL 3 default provider.
    io.stderr.write('svc-password: Blowfish keys (-blf) are not supported; use -des (R66 uses DES only)\n');
    return PASSWORD_EXIT.USAGE;
  }
  try {
    const key = await loadKey(o);
    if (o.passwordIn === undefined && o.passwordOut === undefined) {
      io.stdout.write('Key written\n');
      return PASSWORD_EXIT.OK;
    }
    let clear: string;
    if (o.password !== undefined) clear = o.password;
    else if (o.cryptedPassword !== undefined) clear = decryptPasswordHex(key, o.cryptedPassword.trim());
    else if (o.passwordIn !== undefined) {
      const file = o.passwordIn;
      clear = await readGgpHex(file).then((hex) => decryptPasswordHex(key, hex)).catch((err: unknown) => {
        throw err instanceof ConfigError ? err.at({ file }) : err;
      });
    } else {
      io.stdout.write('Password to crypt:');
      clear = await readLine(io.stdin);
      if (clear === '') {
        io.stderr.write('svc-password: no password entered\n');
        return PASSWORD_EXIT.NO_PASSWORD;
      }
    }
    const hex = o.passwordOut !== undefined ? await writeGgpFile(o.passwordOut, key, clear) : encryptPasswordHex(key, clear);
    io.stdout.write(`CryptedPwd: ${hex}\n`);
    if (o.clear) io.stdout.write(`ClearPwd: ${clear}\n`);
    return PASSWORD_EXIT.OK;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.stderr.write(`svc-password: ${err.message}\n`);
    return PASSWORD_EXIT.ERROR;
  }
}
