/**
 * EXEC, EXECMOVE, EXECOUTPUT (tasks.md §8). Pipeline B builds the words; the first is the program.
 * Exit 0 = success, 1 = success with a warning, anything else or the time limit = failure.
 *
 * `#LOCALEXEC#` is accepted and removed, and the program runs locally: in the original these three
 * tasks never reach the LocalExec daemon either (the marker is detected too late).
 */
import { existsSync } from 'node:fs';
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { maskTaskArgument } from '../model/rule-secrets.js';
import { repointCurrentFile, type TaskContext } from './context.js';
import { CommandLineError, commandLineFailure } from './command-line.js';
import { absoluteNotExecutable, runProcess, startDetached, type ExecOutcome } from './exec-process.js';
import { resolveTaskPath, toSlashes } from './paths.js';
import { pipelineB } from './substitution.js';
import { failure, success, warning, type TaskImplementation, type TaskInvocation, type TaskResult } from './task.js';

/** The failure message of exec-like tasks, which becomes the error sent to the partner (§7). */
export function execFailureMessage(status: number | string, text: string): string {
  return `<STATUS>${status}</STATUS><ERROR>${text}</ERROR>`;
}

interface Prepared {
  program: string;
  args: string[];
  noWait: boolean;
}

/** The command line as this host's log shows it: words quoted where needed, credentials masked. */
function loggedCommand(words: readonly string[]): string {
  return maskTaskArgument(words.map((w) => (w === '' || /[\s"']/.test(w) ? JSON.stringify(w) : w)).join(' '));
}

/**
 * A failure whose details (the program, the command line) stay in this host's log: the message
 * becomes the error the partner receives, which must not show this host's command lines (issue 32).
 */
function localFailure(call: TaskInvocation, logged: string, told: string, code?: ErrorCodeInfo): TaskResult {
  call.ctx.logger.warn(`${call.type}: ${logged}`);
  return failure(`${call.type}: ${told}`, code);
}

/** Builds the command line, or the failure to report. */
function prepare(call: TaskInvocation): Prepared | TaskResult {
  let words: string[];
  let noWait: boolean;
  try {
    ({ words, noWait } = pipelineB(call.argument, call.ctx));
  } catch (err) {
    if (err instanceof CommandLineError) return commandLineFailure(call.type, err, call.ctx.logger, ErrorCode.CommandNotFound);
    throw err;
  }
  const [program, ...args] = words;
  if (!program) return failure(`${call.type}: no program given`, ErrorCode.CommandNotFound);
  if (absoluteNotExecutable(program)) return localFailure(call, `${program} is not an executable file`, 'the program is not an executable file', ErrorCode.CommandNotFound);
  return { program, args, noWait };
}

function lastLines(text: string, max = 5): string {
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '').slice(-max).join(' | ');
}

/** Failure for outcomes other than exit 0/1; the command line is logged here, not told to the partner. */
function abnormal(call: TaskInvocation, p: Prepared, out: ExecOutcome): TaskResult {
  const { type, delay } = call;
  const command = loggedCommand([p.program, ...p.args]);
  if (out.kind === 'not-started') return localFailure(call, `cannot start ${command}: ${out.reason}`, `cannot start the program: ${out.reason}`, out.notFound ? ErrorCode.CommandNotFound : ErrorCode.ExternalOp);
  if (out.kind === 'timeout') {
    call.ctx.logger.warn(`${type}: ${command} killed after the time limit of ${delay} ms`);
    return failure(execFailureMessage(-1, `${type}: the program was killed after the time limit of ${delay} ms`));
  }
  call.ctx.logger.warn(`${type}: ${command} exited with status ${out.code}`);
  // The program's own last error lines go to the partner, as in the original (tasks.md §7).
  const detail = lastLines(out.stderr);
  return failure(execFailureMessage(out.code, detail || `${type}: the program exited with status ${out.code}`));
}

async function execute(call: TaskInvocation, prepared: Prepared, captureStdout: boolean): Promise<ExecOutcome> {
  const cwd = call.ctx.dirs.home;
  return runProcess({ program: prepared.program, args: prepared.args, timeoutMs: call.delay, captureStdout, cwd });
}

const execTask: TaskImplementation = {
  async run(call) {
    const p = prepare(call);
    if (!('program' in p)) return p;
    if (p.noWait) {
      // Detached: the exit code is ignored, as in the original; only a failure to start is reported.
      const err = await startDetached({ program: p.program, args: p.args, timeoutMs: call.delay, captureStdout: false, cwd: call.ctx.dirs.home });
      return err === null ? success() : localFailure(call, `cannot start ${loggedCommand([p.program, ...p.args])}: ${err}`, `cannot start the program: ${err}`, ErrorCode.CommandNotFound);
    }
    const out = await execute(call, p, false);
    if (out.kind === 'exited' && out.code === 0) return success();
    if (out.kind === 'exited' && out.code === 1) {
      // The original logs a warning but does not set the W info status for EXEC.
      call.ctx.logger.warn(`${call.type}: ${p.program} exited with status 1 (warning)`);
      return success();
    }
    return abnormal(call, p, out);
  },
};

/** The last non-empty trimmed line of `text`, or ''. */
export function lastNonEmptyLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  return lines[lines.length - 1] ?? '';
}

const execMoveTask: TaskImplementation = {
  async run(call) {
    const p = prepare(call);
    if (!('program' in p)) return p;
    const out = await execute(call, p, true); // always waits: #NOWAIT# is ignored
    if (out.kind === 'exited' && out.code === 0) {
      const line = lastNonEmptyLine(out.stdout);
      if (line === '') return failure(execFailureMessage(0, `${call.type}: ${p.program} printed no new file path`));
      const path = resolveTaskPath(call.ctx, toSlashes(line));
      if (!existsSync(path)) call.ctx.logger.warn(`${call.type}: new current file ${path} does not exist`);
      repointCurrentFile(call.ctx, path);
      return success(path);
    }
    if (out.kind === 'exited' && out.code === 1) {
      call.ctx.logger.warn(`${call.type}: ${p.program} exited with status 1 (warning); current file unchanged`);
      return warning();
    }
    return abnormal(call, p, out);
  },
};

const NEW_NAME = 'NEWFINALNAME:';

/** Applies `NEWFINALNAME:<path>` of a failing EXECOUTPUT; returns the error text before it. */
function takeNewFinalName(ctx: TaskContext, output: string): string {
  const at = output.lastIndexOf(NEW_NAME);
  if (at < 0) return output;
  const path = output.slice(at + NEW_NAME.length).trim();
  if (path !== '') repointCurrentFile(ctx, resolveTaskPath(ctx, toSlashes(path)));
  return output.slice(0, at);
}

const execOutputTask: TaskImplementation = {
  async run(call) {
    const p = prepare(call);
    if (!('program' in p)) return p;
    const out = await execute(call, p, true);
    if (out.kind !== 'exited') return abnormal(call, p, out);
    const output = out.stdout.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '').map((l) => `${l}\n`).join('');
    if (out.code === 0) return success(output);
    if (out.code === 1) {
      call.ctx.logger.warn(`${call.type}: ${p.program} exited with status 1 (warning): ${output.trim()}`);
      return warning(output);
    }
    return failure(execFailureMessage(out.code, takeNewFinalName(call.ctx, output).trim()));
  },
};

export const execTasks: Record<string, TaskImplementation> = {
  EXEC: execTask,
  EXECMOVE: execMoveTask,
  EXECOUTPUT: execOutputTask,
};
