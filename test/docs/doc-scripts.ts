// Runs the `sh` blocks of a page of docs/ in one bash session, so that every command a document
// shows is a command a test ran (issue 22: quick start and REST examples). The svc commands are
// the launchers of bin/ (on the PATH under their installed names).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../cli/cli-helpers.js';

/** The `sh` fenced blocks of a docs page, in order. */
export function shellBlocks(page: string): string[] {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
}

/** A directory holding `svc-r66server`, `svc-r66client`, `svc-password` (links to bin/). */
export function commandDir(dir: string): string {
  const binDir = join(dir, 'bin');
  mkdirSync(binDir, { recursive: true });
  for (const name of ['svc-r66server', 'svc-r66client', 'svc-password']) symlinkSync(join(ROOT, 'bin', `${name}.js`), join(binDir, name));
  return binDir;
}

export interface ScriptResult {
  code: number | null;
  output: string;
}

/** Runs `script` with `bash -e -x` (the trace shows which command failed); output and trace merged. */
export function runScript(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<ScriptResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-x', '-c', script], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}
