/**
 * The task subsystem: registry, substitution, runner and every local task type.
 * The engine uses `createTaskRegistry`, `validateRuleTasks` (rule load), `tasksFor`/`sideOf` and
 * `runTaskList`, and implements the hooks of `context.ts`.
 */
import { BUILTIN_EXECJAVA } from './builtin-plugins.js';
import { checkTasks } from './check-tasks.js';
import { execJavaTasks } from './execjava-task.js';
import { execTasks } from './exec-tasks.js';
import { fileTasks } from './file-tasks.js';
import { logTask } from './log-task.js';
import { snmpTask } from './snmp-task.js';
import { S3_TASK_TYPES, TaskRegistry, validateRuleTasks, type RuleTaskCheck } from './registry.js';
import type { TaskImplementation } from './task.js';
import type { Rule } from '../model/rule.js';
import { rescheduleTasks } from './reschedule-task.js';
import { transferTasks } from './transfer-tasks.js';
import type { TaskLogger } from './context.js';
import { loadExtendTaskFactories } from './plugins.js';

/**
 * The families that need packages of their own (tar, yazl, yauzl and zstd for the archives,
 * iconv-lite and the charset tables for TRANSCODE, basic-ftp, the AWS SDK and the ICAP client for
 * the network tasks) load when one of their types first runs: every CLI command and server start
 * builds a registry, and those modules were about 0.1 s of its CPU (decision 0052). The type names
 * are listed here; test/tasks/lazy-families.test.ts checks them against the modules' own.
 */
export const LAZY_TASK_FAMILIES = {
  archive: { types: ['TAR', 'ZIP', 'COMPRESS'], load: async () => (await import('./archive-tasks.js')).archiveTasks },
  transcode: { types: ['TRANSCODE'], load: async () => (await import('./transcode-task.js')).transcodeTasks },
  network: { types: ['ICAP', 'FTP', ...S3_TASK_TYPES], load: async () => (await import('./network/index.js')).networkTasks },
} as const satisfies Record<string, { types: readonly string[]; load: () => Promise<Record<string, TaskImplementation>> }>;

/** Implementations of `types` that import their family's module at their first run. */
function lazyFamily(types: readonly string[], load: () => Promise<Record<string, TaskImplementation>>): Record<string, TaskImplementation> {
  let family: Promise<Record<string, TaskImplementation>> | undefined;
  const loaded = (): Promise<Record<string, TaskImplementation>> => {
    // A failed import is tried again at the next run rather than remembered.
    family ??= load().catch((err: unknown) => { family = undefined; throw err; });
    return family;
  };
  return Object.fromEntries(types.map((type): [string, TaskImplementation] => [type, {
    async run(call) {
      const impl = (await loaded())[type];
      if (impl === undefined) throw new Error(`task type ${type} is missing from its family's module`);
      return impl.run(call);
    },
  }]));
}

const lazyFamilies = Object.values(LAZY_TASK_FAMILIES).map(({ types, load }) => lazyFamily(types, load));

/** A registry with every built-in task type and built-in EXECJAVA plug-in. */
export function createTaskRegistry(): TaskRegistry {
  const registry = new TaskRegistry();
  registry.register('LOG', logTask);
  registry.register('SNMP', snmpTask);
  for (const family of [fileTasks, checkTasks, execTasks, execJavaTasks, transferTasks, rescheduleTasks, ...lazyFamilies]) {
    for (const [type, impl] of Object.entries(family)) registry.register(type, impl);
  }
  for (const [className, factory] of Object.entries(BUILTIN_EXECJAVA)) registry.registerExecJava(className, factory);
  return registry;
}

/**
 * The registry of a host: the built-in types plus the plug-ins of its `extendedtaskfactories`
 * list (server.xml/client.xml), relative entries resolved against `baseDir` (the configuration
 * directory). What a server builds at start and what rule loading checks against.
 */
export async function hostTaskRegistry(factories: readonly string[], baseDir: string, logger: TaskLogger): Promise<TaskRegistry> {
  const registry = createTaskRegistry();
  await loadExtendTaskFactories(registry, factories.join(','), baseDir, logger);
  return registry;
}

let builtins: TaskRegistry | undefined;

/**
 * `validateRuleTasks` against `registry`, the host's (built-in types and loaded plug-ins, what its
 * engine runs), or the built-in types when there is none.
 */
export function checkRuleTasks(rule: Rule, registry?: TaskRegistry): RuleTaskCheck {
  return validateRuleTasks(rule, registry ?? (builtins ??= createTaskRegistry()));
}

/** For the rule file loaders: a type the registry runs (plug-in types included) is kept. */
export function runsTaskType(registry: TaskRegistry): (type: string) => boolean {
  return (type) => registry.get(type) !== undefined;
}

export * from './context.js';
export type { TaskImplementation, TaskInvocation, TaskResult } from './task.js';
export { success, warning, failure } from './task.js';
export type { ExecJavaCall, ExecJavaFactory, ExecJavaPlugin, TaskPluginModule } from './plugin-types.js';
export { TaskRegistry, validateRuleTasks, validateRules, BUILTIN_TASK_TYPES, S3_TASK_TYPES } from './registry.js';
export type { RuleTaskCheck } from './registry.js';
export { runTaskList, tasksFor, sideOf } from './runner.js';
export type { RunOptions, TaskListOutcome, TaskListStep, TaskSide } from './runner.js';
export { pipelineA, pipelineB, normalizeSpaces, replaceVariables } from './substitution.js';
export { variableValues } from './variables.js';
export { parseTransferInfo, formatTransferInfo, readInfoMap, updateInfoMap } from './transfer-info.js';
export type { InfoMap, InfoValue, ParsedInfo } from './transfer-info.js';
export { loadTaskPlugin, loadExtendTaskFactories, registerPluginModule, canonicalClassName } from './plugins.js';
