/**
 * Task type name -> implementation, and the EXECJAVA plug-ins by class name.
 *
 * Every type name of tasks.md is known here and implemented (FTP, S3*, ICAP and SNMP register from
 * src/tasks/network); a rule task of any other type is skipped with a warning when rules are loaded.
 */
import type { Rule, RuleTask } from '../model/rule.js';
import type { ExecJavaFactory } from './plugin-types.js';
import type { TaskImplementation } from './task.js';

/** The built-in names (tasks.md §8), in the original's order. */
export const BUILTIN_TASK_TYPES = [
  'LOG', 'MOVE', 'MOVERENAME', 'COPY', 'COPYRENAME', 'EXEC', 'EXECMOVE', 'EXECOUTPUT', 'EXECJAVA',
  'TRANSFER', 'VALIDFILEPATH', 'DELETE', 'LINKRENAME', 'RESCHEDULE', 'TAR', 'ZIP', 'TRANSCODE',
  'SNMP', 'FTP', 'RENAME', 'RESTART', 'UNZEROED', 'CHKFILE', 'CHMOD', 'ICAP', 'COMPRESS',
] as const;

/** Names added by the S3 extension factory, always present in the original. */
export const S3_TASK_TYPES = ['S3GET', 'S3GETDELETE', 'S3DELETE', 'S3PUT', 'S3PUTR66DELETE'] as const;

/** The original's internal type of extension tasks: never valid in a rule. */
export const INTERNAL_TASK_TYPE = 'EXTENDED';

export class TaskRegistry {
  private readonly tasks = new Map<string, TaskImplementation>();
  private readonly execJava = new Map<string, ExecJavaFactory>();

  /** Registers (or replaces: extension types take precedence over built-ins) a task type. */
  register(type: string, impl: TaskImplementation): this {
    this.tasks.set(type.toUpperCase(), impl);
    return this;
  }

  /** The implementation of a type (case-insensitive), or undefined. */
  get(type: string): TaskImplementation | undefined {
    return this.tasks.get(type.toUpperCase());
  }

  /** Registers an EXECJAVA plug-in under a class name (both package prefixes, see plugins.ts). */
  registerExecJava(className: string, factory: ExecJavaFactory): this {
    this.execJava.set(className, factory);
    return this;
  }

  execJavaFactory(className: string): ExecJavaFactory | undefined {
    return this.execJava.get(className);
  }

  /** Registered type names. */
  types(): string[] {
    return [...this.tasks.keys()];
  }
}

export interface RuleTaskCheck {
  /** The rule with unknown task types dropped (tasks.md §1.5: skipped and logged). */
  rule: Rule;
  /** One line per dropped task, naming the rule, the list and the type. */
  warnings: string[];
}

const LISTS = ['rPreTasks', 'rPostTasks', 'rErrorTasks', 'sPreTasks', 'sPostTasks', 'sErrorTasks'] as const;

/**
 * Checks the task types of a rule when it is loaded: a type the registry does not run is dropped
 * with a warning, as the original skips it (tasks.md §1.5).
 */
export function validateRuleTasks(rule: Rule, registry: TaskRegistry): RuleTaskCheck {
  const warnings: string[] = [];
  const checked: Partial<Record<(typeof LISTS)[number], RuleTask[]>> = {};
  for (const list of LISTS) {
    const kept: RuleTask[] = [];
    rule[list].forEach((task, index) => {
      const type = task.type.trim().toUpperCase();
      const where = `task ${index + 1} (${type || 'no type'}) of list ${list} in rule "${rule.idRule}"`;
      if (type !== '' && registry.get(type)) {
        kept.push(type === task.type ? task : { ...task, type });
      } else if (type === INTERNAL_TASK_TYPE) {
        warnings.push(`${where}: ${INTERNAL_TASK_TYPE} is an internal type, never valid in a rule; task skipped`);
      } else {
        warnings.push(`${where}: unknown task type; task skipped`);
      }
    });
    checked[list] = kept;
  }
  return { rule: { ...rule, ...checked }, warnings };
}

/**
 * Checks every rule as it is loaded (rule files, database, REST): the one place every loading path
 * calls. Returns the rules with unknown types dropped, and one warning per dropped task.
 */
export function validateRules(rules: readonly Rule[], registry: TaskRegistry): { rules: Rule[]; warnings: string[] } {
  const out: Rule[] = [];
  const warnings: string[] = [];
  for (const rule of rules) {
    const checked = validateRuleTasks(rule, registry);
    out.push(checked.rule);
    warnings.push(...checked.warnings);
  }
  return { rules: out, warnings };
}
