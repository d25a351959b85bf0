// Entry point of svc-password (bin/svc-password.js imports the compiled file).
import { runPasswordTool } from './tool.js';

runPasswordTool(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`svc-password: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
