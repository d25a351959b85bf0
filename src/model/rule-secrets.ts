/**
 * Credentials in rule task arguments (FTP `-pwd`, S3 `-secretKey`, any option named like a
 * password, secret, token or key): the one place that says which values are secret, masks them
 * for callers without the RULE role (REST v1/v2, web pages, configuration export) and puts the
 * stored value back when a masked argument comes back in an update (decision 0038).
 */
import type { Rule, RuleTask } from './rule.js';

/** What a secret value is shown as. Never a plausible password: a rule that sends it back is recognised. */
export const SECRET_MASK = '********';

export const TASK_LISTS = ['rPreTasks', 'rPostTasks', 'rErrorTasks', 'sPreTasks', 'sPostTasks', 'sErrorTasks'] as const;
export type TaskListName = (typeof TASK_LISTS)[number];

/**
 * An option name (without its leading dashes) whose value is a credential: pwd, pass, password,
 * passphrase, secret, token, credential(s) anywhere in the name, or a name ending in `key`
 * (`-secretKey`, `-accessKey`, `-apiKey`); ICAP's header options `-key204`, `-keyPreview` name
 * headers, not keys, and stay visible.
 */
export function isSecretOption(name: string): boolean {
  const n = name.toLowerCase();
  return /pwd|pass(?:w|phrase|$)|secret|token|credential/.test(n) || n.endsWith('key');
}

interface Word {
  start: number;
  end: number;
  /** The word without its quotes. */
  text: string;
}

/** Words of a task argument with their places in it: spaces separate, quotes group (pipeline B's split). */
function words(arg: string): Word[] {
  const out: Word[] = [];
  let i = 0;
  while (i < arg.length) {
    while (i < arg.length && /\s/.test(arg[i]!)) i++;
    if (i >= arg.length) break;
    const start = i;
    let text = '';
    let quote: string | null = null;
    for (; i < arg.length; i++) {
      const ch = arg[i]!;
      if (quote !== null) {
        if (ch === quote) quote = null;
        else text += ch;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (/\s/.test(ch)) break;
      else text += ch;
    }
    out.push({ start, end: i, text });
  }
  return out;
}

/** One secret value in an argument: the option that names it and where the value is. */
interface SecretValue {
  option: string;
  /** Kept in front of the mask: `-name=` when name and value are one word. */
  prefix: string;
  start: number;
  end: number;
  value: string;
}

/** `-name value`, `-name=value` and `name=value` with a secret name. */
function secretValues(arg: string): SecretValue[] {
  const out: SecretValue[] = [];
  const ws = words(arg);
  for (let k = 0; k < ws.length; k++) {
    const w = ws[k]!;
    const eq = w.text.indexOf('=');
    if (eq > 0) {
      const name = w.text.slice(0, eq).replace(/^-{1,2}/, '');
      // The whole word is replaced (quotes may surround it): `-name=` then the mask.
      if (isSecretOption(name) && w.text.length > eq + 1) out.push({ option: name.toLowerCase(), prefix: w.text.slice(0, eq + 1), start: w.start, end: w.end, value: w.text.slice(eq + 1) });
      continue;
    }
    if (!/^-{1,2}[A-Za-z]/.test(w.text)) continue;
    const name = w.text.replace(/^-{1,2}/, '');
    const next = ws[k + 1];
    if (!isSecretOption(name) || next === undefined) continue;
    out.push({ option: name.toLowerCase(), prefix: '', start: next.start, end: next.end, value: next.text });
    k++;
  }
  return out;
}

function replaceValues(arg: string, values: SecretValue[], by: (v: SecretValue) => string): string {
  let out = '';
  let at = 0;
  values.forEach((v) => {
    out += arg.slice(at, v.start) + by(v);
    at = v.end;
  });
  return out + arg.slice(at);
}

/** The argument with every secret value replaced by SECRET_MASK. */
export function maskTaskArgument(arg: string): string {
  const values = secretValues(arg);
  return values.length === 0 ? arg : replaceValues(arg, values, (v) => v.prefix + SECRET_MASK);
}

/** Whether an argument holds a secret value (masked or not). */
export function hasSecret(arg: string): boolean {
  return secretValues(arg).length > 0;
}

const maskTask = (t: RuleTask): RuleTask => ({ ...t, path: maskTaskArgument(t.path) });

/** A copy of the rule whose task arguments show no secret. */
export function maskRuleSecrets(rule: Rule): Rule {
  const out: Rule = { ...rule };
  for (const list of TASK_LISTS) out[list] = rule[list].map(maskTask);
  return out;
}

/** A masked value came back where no stored value can stand for it: refused with where and what. */
export class MaskedSecretError extends Error {
  constructor(readonly rule: string, readonly list: TaskListName, readonly index: number, readonly option: string) {
    super(`rule ${rule}: ${list}[${index}] gives the masked value ${SECRET_MASK} for -${option} and no stored value matches it; give the secret itself`);
    this.name = 'MaskedSecretError';
  }
}

/** The stored argument that stands for an incoming one with masked values, or undefined. */
function storedFor(task: RuleTask, index: number, stored: readonly RuleTask[]): RuleTask | undefined {
  // The same argument once masked (tasks moved around), else the task at the same place and of the same type.
  return stored.find((s) => s.type === task.type && maskTaskArgument(s.path) === task.path)
    ?? (stored[index]?.type === task.type ? stored[index] : undefined);
}

/**
 * The rule as it must be stored: every secret value given as SECRET_MASK is replaced by the value
 * the stored rule holds for the same option (n-th occurrence) of the matching task. A rule read by a
 * caller that saw the masks and sent back unchanged keeps its credentials; throws MaskedSecretError
 * when no stored value exists (a new rule, a new task), so the mask itself is never stored.
 */
export function restoreMaskedSecrets(incoming: Rule, stored: Rule | undefined): Rule {
  const out: Rule = { ...incoming };
  for (const list of TASK_LISTS) {
    out[list] = incoming[list].map((task, index) => {
      const values = secretValues(task.path);
      if (!values.some((v) => v.value === SECRET_MASK)) return task;
      const source = stored === undefined ? undefined : storedFor(task, index, stored[list]);
      const known = source === undefined ? [] : secretValues(source.path);
      const seen = new Map<string, number>();
      const path = replaceValues(task.path, values, (v) => {
        const nth = seen.get(v.option) ?? 0;
        seen.set(v.option, nth + 1);
        if (v.value !== SECRET_MASK) return task.path.slice(v.start, v.end);
        const original = known.filter((k) => k.option === v.option)[nth];
        if (original === undefined || source === undefined) throw new MaskedSecretError(incoming.idRule, list, index, v.option);
        return source.path.slice(original.start, original.end);
      });
      return { ...task, path };
    });
  }
  return out;
}
