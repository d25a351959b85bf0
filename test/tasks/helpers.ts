/** Builds task contexts on real temporary directories for the task tests. */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import type { TaskContext, TaskLogger, TaskTransfer } from '../../src/tasks/context.js';

export interface LogLine { level: string; msg: string }

/** A logger that keeps every line, for assertions. */
export function memoryLogger(): TaskLogger & { lines: LogLine[]; text(): string } {
  const lines: LogLine[] = [];
  const at = (level: string) => (msg: string) => { lines.push({ level, msg }); };
  return { lines, trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), text: () => lines.map((l) => `${l.level}: ${l.msg}`).join('\n') };
}

export function makeTransfer(overrides: Partial<TaskTransfer> = {}): TaskTransfer {
  return {
    specialId: 1234567890123456789n,
    requester: 'hostA',
    requested: 'hostB',
    idRule: 'rule1',
    mode: TransferMode.SENDMODE,
    blockSize: 65536,
    rank: 7,
    originalName: 'sub/dir\\orig.txt',
    filename: '',
    isMoved: false,
    fileInfo: 'lot42 extra',
    transferInfo: '{"ORIGINALSIZE":11}',
    infoStatus: ErrorCode.InitOk,
    start: new Date(2024, 2, 15, 14, 22, 33),
    stop: new Date(2024, 2, 15, 14, 22, 33),
    ...overrides,
  };
}

/** A temporary home with in/out/work/arch, removed by `cleanup`. */
export function makeHome(): { home: string; cleanup(): void } {
  const home = mkdtempSync(join(tmpdir(), 'svc-tasks-'));
  for (const d of ['in', 'out', 'work', 'arch']) mkdirSync(join(home, d));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

export function makeContext(home: string, overrides: Partial<TaskContext> = {}): TaskContext & { logger: ReturnType<typeof memoryLogger> } {
  const transfer = makeTransfer();
  const ctx = {
    transfer,
    session: { localHostId: 'hostA', remoteHostId: 'hostB', localAddress: '/127.0.0.1:6666', remoteAddress: '/127.0.0.1:40000', isSender: true, isRequester: true, partnerIsSystem: false },
    dirs: { home, in: join(home, 'in'), out: join(home, 'out'), work: join(home, 'work'), arch: join(home, 'arch') },
    currentFile: null,
    error: null,
    rescheduled: false,
    logger: memoryLogger(),
    engine: {},
    now: () => new Date(2024, 2, 15, 14, 22, 33),
    ...overrides,
  } as TaskContext & { logger: ReturnType<typeof memoryLogger> };
  return ctx;
}
