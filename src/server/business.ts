/**
 * Business requests of a running server (r66-protocol.md §9.11, rest-v1.md §12.2, tasks.md "Tasks
 * allowed in business requests"): a fixed registry of class names, one implementation each.
 *
 * - `ExecBusinessTask` (`org.waarp.openr66.context.task.ExecBusinessTask` or the `org.svc` name):
 *   the argument is `<TYPE> <task argument...>`; runs that one task outside any transfer (empty
 *   transfer information) with the request's delay. Only LOG (delay 0 becomes 1), EXEC, TRANSFER,
 *   TAR, ZIP, EXECOUTPUT, EXECJAVA, SNMP, FTP, RESTART, ICAP are allowed; types this version does
 *   not run (SNMP, FTP, ICAP) fail as unknown.
 * - `SpooledInformTask`: a FileWatcher's status (filewatcher.md §5.1), kept in memory for
 *   `GET /v2/filemonitors`.
 * - `TestExecJavaTask` and every EXECJAVA plug-in of the registry (built-in or extendTaskFactory):
 *   run with the argument, status 0/1 success, anything else failure.
 *
 * What a business task sees as its argument: the text after the class name, with the trailing
 * `true`/`false` ("to apply") the original appends removed.
 */
import type { Logger } from 'pino';
import type { DirectoryConfig } from '../config/index.js';
import { hasRole, Role } from '../config/index.js';
import type { FileMonitorReport, FileMonitorSource } from '../http/context.js';
import { FileMonitorError, FileMonitorRegistry } from './filemonitors.js';
import { ErrorCode } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';
import type { RequestHandler } from '../net/handlers.js';
import { PacketType, Way, type BusinessRequestPacket, type JsonCommandPacket } from '../protocol/index.js';
import { canonicalClassName, runTaskList, type EngineHooks, type TaskContext, type TaskLogger, type TaskRegistry, type TransferSubmission } from '../tasks/index.js';

/** Task types ExecBusinessTask may run (tasks.md). */
export const BUSINESS_TASK_TYPES: ReadonlySet<string> = new Set(['LOG', 'EXEC', 'TRANSFER', 'TAR', 'ZIP', 'EXECOUTPUT', 'EXECJAVA', 'SNMP', 'FTP', 'RESTART', 'ICAP']);

const EXEC_BUSINESS = 'org.svc.openr66.context.task.ExecBusinessTask';
const SPOOLED_INFORM = 'org.svc.openr66.context.task.SpooledInformTask';

export interface BusinessRequestInput {
  className: string;
  /** `<className> <arguments> <toApplied>` as REST v1 builds it, or the arguments alone. */
  arguments: string;
  extraArguments: string | null;
  delayMs: number;
  /** Caller: the partner host id (R66) or the REST user. */
  user: string;
}

export interface BusinessOutcome {
  ok: boolean;
  result: string | null;
}

export interface BusinessRegistryOptions {
  hostId: string;
  directories: DirectoryConfig;
  tasks: TaskRegistry;
  logger: Logger;
  /** The effective role of a caller (R66 partner or REST user named by its host id). */
  roleOf(hostId: string): Promise<number>;
  /** Submits a transfer for the scheduler (TRANSFER); absent before the engine runs. */
  submit?(s: TransferSubmission): Promise<bigint>;
  /** RESTART's in-process restart. */
  restarter?: EngineHooks['restarter'];
  /** The SNMP task's notifier (the running agent's). */
  snmp?: EngineHooks['snmp'];
  /** Default delay of tasks written without one (`timeoutcon`). */
  defaultTimeoutMs: number;
}

/** The registry REST v1 `/business` and the R66 business request use. */
export class BusinessRegistry implements FileMonitorSource {
  /** FileWatcher reports (src/server/filemonitors.ts). */
  readonly fileMonitors = new FileMonitorRegistry();

  constructor(private readonly opts: BusinessRegistryOptions) {}

  /** True when `className` names a business task of this server. */
  has(className: string): boolean {
    const name = canonicalClassName(className.trim());
    return name === EXEC_BUSINESS || name === SPOOLED_INFORM || this.plugin(name) !== undefined;
  }

  /** FileWatcher reports received through SpooledInformTask (GET /v2/filemonitors). */
  list(): FileMonitorReport[] {
    return this.fileMonitors.list();
  }

  async run(req: BusinessRequestInput): Promise<BusinessOutcome> {
    const name = canonicalClassName(req.className.trim());
    const args = taskArguments(req.className, req.arguments);
    if (name === EXEC_BUSINESS) return this.execBusiness(args, req);
    if (name === SPOOLED_INFORM) return this.spooledInform(args, req.user);
    const factory = this.plugin(name);
    if (factory === undefined) return { ok: false, result: `business task ${req.className} is not known on this server` };
    const ctx = await this.context(req.user);
    const controller = new AbortController();
    const timer = req.delayMs > 100 ? setTimeout(() => controller.abort(), req.delayMs) : undefined;
    try {
      const status = await factory().run({ ctx, className: req.className, args, delay: req.delayMs, waitForValidation: true, useLocalExec: false, signal: controller.signal });
      return status === 0 || status === 1 ? { ok: true, result: null } : { ok: false, result: `status ${status}` };
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  private plugin(name: string): ReturnType<TaskRegistry['execJavaFactory']> {
    if (name === EXEC_BUSINESS || name === SPOOLED_INFORM) return undefined;
    return this.opts.tasks.execJavaFactory(name);
  }

  private async execBusiness(args: string, req: BusinessRequestInput): Promise<BusinessOutcome> {
    const m = /^(\S+)\s*([\s\S]*)$/.exec(args);
    if (m === null) return { ok: false, result: 'ExecBusinessTask needs a task type and its argument' };
    const type = (m[1] as string).toUpperCase();
    if (!BUSINESS_TASK_TYPES.has(type)) return { ok: false, result: `task type ${type} is not allowed in business requests` };
    if (this.opts.tasks.get(type) === undefined) return { ok: false, result: `task type ${type} is not available on this server` };
    const delay = type === 'LOG' && req.delayMs === 0 ? 1 : req.delayMs;
    const ctx = await this.context(req.user);
    const out = await runTaskList([{ type, path: m[2] ?? '', delay }], ctx, { registry: this.opts.tasks });
    if (out.status === 'failure') return { ok: false, result: out.message ?? 'task failed' };
    return { ok: true, result: out.data ?? null };
  }

  /** A FileWatcher's report: kept (filewatcher.md §5.2); `needfull` fails the request so the watcher sends it all next. */
  private spooledInform(args: string, user: string): BusinessOutcome {
    try {
      const answer = this.fileMonitors.update(user, args);
      return answer === 'Validated' ? { ok: true, result: answer } : { ok: false, result: answer };
    } catch (err) {
      if (err instanceof FileMonitorError) return { ok: false, result: err.message };
      throw err;
    }
  }

  private async context(user: string): Promise<TaskContext> {
    const { directories: d, logger } = this.opts;
    const system = hasRole(await this.opts.roleOf(user).catch(() => 0), Role.SYSTEM);
    const engine: EngineHooks = {
      ...(this.opts.restarter ? { restarter: this.opts.restarter } : {}),
      ...(this.opts.snmp ? { snmp: this.opts.snmp } : {}),
      ...(this.opts.submit ? { transfers: { submit: this.opts.submit } } : {}),
    };
    return {
      transfer: null,
      session: { localHostId: this.opts.hostId, remoteHostId: user, localAddress: null, remoteAddress: null, isSender: false, isRequester: false, partnerIsSystem: system },
      dirs: { home: d.serverHome, in: d.in, out: d.out, work: d.work, arch: d.arch },
      currentFile: null,
      error: null,
      rescheduled: false,
      logger: taskLogger(logger.child({ component: 'business' })),
      engine,
      options: { defaultTimeoutMs: this.opts.defaultTimeoutMs },
    };
  }
}

/** The text after the class name, without the trailing "to apply" flag. */
export function taskArguments(className: string, text: string): string {
  let rest = text.trim();
  const first = /^\S+/.exec(rest)?.[0];
  if (first !== undefined && canonicalClassName(first) === canonicalClassName(className.trim())) rest = rest.slice(first.length).trim();
  return rest.replace(/\s+(true|false)$/i, '').replace(/^(true|false)$/i, '');
}

function taskLogger(log: Logger): TaskLogger {
  return { trace: (m) => log.trace(m), debug: (m) => log.debug(m), info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m) };
}

export interface BusinessHandlerSource {
  registry: () => BusinessRegistry;
  /** server.xml `business` plus the HOSTCONFIG row's list. */
  allowed(hostId: string): Promise<boolean>;
  ownIds: readonly string[];
}

/**
 * The R66 business request (r66-protocol.md §9.11): `BusinessRequest(header = "<class> <args>",
 * delay, way 0)` answered `BusinessRequest(way 1, same header)` on success, else
 * `Error("BusinessRequest in error: ...")` with `A` (caller not in the white list), `c` (class
 * unknown) or `E` (the task failed). The JSON form (JsonCommand 22) is answered
 * `JsonCommand(json, "O", 15)`.
 */
export function businessHandlers(source: BusinessHandlerSource, previousJson: RequestHandler | undefined): {
  businessRequest: RequestHandler<'businessRequest'>; jsonCommand: RequestHandler<'jsonCommand'>;
} {
  const execute = async (caller: string, className: string, args: string, delay: number): Promise<void> => {
    if (!source.ownIds.includes(caller) && !(await source.allowed(caller))) throw new R66Error(ErrorCode.BadAuthent, 'BusinessRequest in error: not allowed');
    const registry = source.registry();
    if (className.length === 0 || !registry.has(className)) throw new R66Error(ErrorCode.CommandNotFound, `BusinessRequest in error: class ${className} is not known`);
    let out: BusinessOutcome;
    try {
      out = await registry.run({ className, arguments: `${args} true`, extraArguments: null, delayMs: delay, user: caller });
    } catch (err) {
      out = { ok: false, result: err instanceof Error ? err.message : String(err) };
    }
    if (!out.ok) throw new R66Error(ErrorCode.ExternalOp, `BusinessRequest in error: ${out.result ?? 'task failed'}`);
  };
  const businessRequest: RequestHandler<'businessRequest'> = async (ctx, p: BusinessRequestPacket) => {
    if (p.way !== Way.ASK) return;
    const m = /^(\S*)\s*([\s\S]*)$/.exec(p.header.trim());
    await execute(ctx.partner.hostId, m?.[1] ?? '', m?.[2] ?? '', p.delay);
    await ctx.channel.send({ kind: 'businessRequest', header: p.header, delay: 0, way: Way.ANSWER });
  };
  const jsonCommand: RequestHandler<'jsonCommand'> = async (ctx, p: JsonCommandPacket) => {
    const cmd = p.command;
    if (p.subType !== PacketType.BUSINESSREQUEST || cmd?.jsonClass !== 'BusinessRequestJsonPacket') {
      if (previousJson) return previousJson(ctx, p);
      throw new R66Error(ErrorCode.Unimplemented, `Unimplemented command: JsonCommand ${p.subType}`);
    }
    await execute(ctx.partner.hostId, cmd.className ?? '', cmd.arguments ?? '', cmd.delay);
    await ctx.channel.send({ kind: 'jsonCommand', command: { ...cmd, validated: true }, result: ErrorCode.CompleteOk.char, subType: PacketType.REQUESTUSER });
  };
  return { businessRequest, jsonCommand };
}
