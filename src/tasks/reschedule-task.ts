/**
 * RESCHEDULE (tasks.md §8): on the requester, when the current error is one of `-case`, plan the
 * next attempt at now + `-delay`, subject to `-between`/`-notbetween` windows and a `-count`
 * retry counter; then skip the rest of the list. Any refusal is a Warning and the list goes on.
 */
import { checkRange, OPTION_RANGES } from '../config/ranges.js';
import { ErrorCode, parseErrorCode } from '../model/error-code.js';
import { nowOf, type TaskContext } from './context.js';
import { pipelineA } from './substitution.js';
import { infoInteger, readInfoMap, updateInfoMap } from './transfer-info.js';
import { errorText, failure, warning, type TaskImplementation, type TaskResult } from './task.js';

const DAY_MS = 86_400_000;

/** One bound of a window: fields to set on a copy of "now". */
export interface WindowBound {
  items: Array<{ field: 'Y' | 'M' | 'D' | 'H' | 'm' | 'S'; value: number }>;
}

/**
 * Parses `H7:m0:S0`. Only the plain form `<letter><number>` is meaningful; like the original,
 * `H+3` reads as "hour 3", and `H=3`, `H-3` or unknown letters are ignored.
 */
export function parseBound(text: string): WindowBound {
  const items: WindowBound['items'] = [];
  for (const part of text.split(':')) {
    const m = /^([YMDHmS])\+?(\d+)$/.exec(part.trim());
    if (m) items.push({ field: m[1] as WindowBound['items'][number]['field'], value: Number(m[2]) });
  }
  return { items };
}

/** "now" with the bound's fields set (month 0-based, as in the original). */
export function boundDate(now: Date, bound: WindowBound): Date {
  const d = new Date(now.getTime());
  for (const { field, value } of bound.items) {
    if (field === 'Y') d.setFullYear(value);
    else if (field === 'M') d.setMonth(value);
    else if (field === 'D') d.setDate(value);
    else if (field === 'H') d.setHours(value);
    else if (field === 'm') d.setMinutes(value);
    else d.setSeconds(value);
  }
  return d;
}

/**
 * True when `date` falls in the window [start, end). A window whose start is after its end crosses
 * midnight (end + 1 day). A daily window (no Y/M/D item) recurs every day, so the occurrences of
 * the previous and next day are tried too: this is the documented intent; the original's literal
 * shifting rule is described in docs/compatibility.md "Tasks".
 */
export function inWindow(date: Date, now: Date, startB: WindowBound, endB: WindowBound): boolean {
  const start = boundDate(now, startB).getTime();
  let end = boundDate(now, endB).getTime();
  if (start > end) end += DAY_MS;
  const daily = ![...startB.items, ...endB.items].some((i) => i.field === 'Y' || i.field === 'M' || i.field === 'D');
  const shifts = daily ? [-DAY_MS, 0, DAY_MS] : [0];
  const t = date.getTime();
  return shifts.some((s) => start + s <= t && t < end + s);
}

interface RescheduleOptions {
  delay?: number;
  cases?: string[];
  between: Array<[WindowBound, WindowBound]>;
  notBetween: Array<[WindowBound, WindowBound]>;
  count?: number;
  /** A value out of its range: the task refuses, saying this. */
  refusal?: string;
}

function window(text: string | undefined): [WindowBound, WindowBound] {
  const [s = '', e = ''] = (text ?? '').split(';');
  return [parseBound(s), parseBound(e)];
}

/**
 * A `-delay`/`-count` of digits held to its range (src/config/ranges.ts); out of range, undefined
 * and a refusal naming the option and the range (a delay of 10^25 ms made an Invalid Date; issue 32
 * item 6). Not digits: the caller ignores the option, as before.
 */
function bounded(option: '-delay' | '-count', v: string, o: RescheduleOptions): number | undefined {
  const r = checkRange(v, OPTION_RANGES[`RESCHEDULE ${option}`]);
  if (r.ok) return Number(r.value);
  o.refusal ??= `${option}: ${r.message}`;
  return undefined;
}

export function parseRescheduleOptions(words: string[]): RescheduleOptions {
  const o: RescheduleOptions = { between: [], notBetween: [] };
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const v = words[i + 1];
    if (w === '-delay' && v !== undefined && /^\d+$/.test(v)) { o.delay = bounded(w, v, o); i++; }
    else if (w === '-case' && v !== undefined) { o.cases = v.split(',').filter((c) => c !== ''); i++; }
    else if (w === '-between') { o.between.push(window(v)); i++; }
    else if (w === '-notbetween') { o.notBetween.push(window(v)); i++; }
    else if (w === '-count' && v !== undefined && /^\d+$/.test(v)) { o.count = bounded(w, v, o); i++; }
  }
  return o;
}

/** Applies `-count`: true when the reschedule may proceed; updates CPTLIMIT/CPTTOTAL in the map. */
function consumeCount(ctx: TaskContext, reset: number): boolean {
  const t = ctx.transfer;
  if (!t) return false;
  const map = readInfoMap(t.transferInfo);
  const limit = (infoInteger(map.CPTLIMIT) ?? BigInt(reset)) - 1n;
  const total = (infoInteger(map.CPTTOTAL) ?? 0n) + 1n;
  const ok = limit >= 0n;
  t.transferInfo = updateInfoMap(t.transferInfo, { CPTLIMIT: Number(ok ? limit : BigInt(reset)), CPTTOTAL: Number(total) });
  return ok;
}

function refuse(ctx: TaskContext, why: string): TaskResult {
  ctx.logger.info(`RESCHEDULE not applied: ${why}`);
  return warning();
}

const rescheduleTask: TaskImplementation = {
  async run({ type, argument, ctx }) {
    const words = pipelineA(argument, ctx).text.split(/\s+/).filter((w) => w !== '');
    if (words.length < 4) return refuse(ctx, `at least 4 words expected (-delay <ms> -case <codes>), got ${words.length}`);
    if (!ctx.session.isRequester) return failure(`${type}: only the requester of a transfer can reschedule it`, ErrorCode.LoopSelfRequestedHost);
    if (ctx.rescheduled) return refuse(ctx, 'already rescheduled during this run');
    const t = ctx.transfer;
    if (!t) return refuse(ctx, 'no transfer record');
    const o = parseRescheduleOptions(words);
    if (o.refusal !== undefined) return refuse(ctx, o.refusal);
    if (!o.delay || o.delay <= 0) return refuse(ctx, '-delay <ms> (greater than 0) is required');
    if (!o.cases || o.cases.length === 0) return refuse(ctx, '-case <codes> is required');
    const current = ctx.error?.code;
    // Codes are parsed as the original does (first character first): write them as one letter.
    if (!current || !o.cases.some((c) => parseErrorCode(c).char === current.char)) {
      return refuse(ctx, `current error ${current?.name ?? 'none'} is not one of ${o.cases.join(',')}`);
    }
    const now = nowOf(ctx);
    const next = new Date(now.getTime() + o.delay);
    if (o.notBetween.some(([s, e]) => inWindow(next, now, s, e))) return refuse(ctx, `${next.toISOString()} falls in a -notbetween window`);
    if (o.between.length > 0 && !o.between.some(([s, e]) => inWindow(next, now, s, e))) return refuse(ctx, `${next.toISOString()} is outside every -between window`);
    if (o.count !== undefined && !consumeCount(ctx, o.count)) return refuse(ctx, `retry count of ${o.count} exhausted`);
    const hook = ctx.engine.rescheduler;
    if (!hook) return failure(`${type}: this host cannot reschedule transfers here`);
    t.start = next;
    try {
      await hook.reschedule(next);
    } catch (err) {
      return failure(`${type}: cannot reschedule transfer ${t.specialId}: ${errorText(err)}`);
    }
    ctx.rescheduled = true;
    // The record is written whole after the list: the flag must be in it (database.md §4.4).
    t.transferInfo = updateInfoMap(t.transferInfo, { RESCHEDULE: true });
    ctx.logger.info(`${type}: transfer ${t.specialId} rescheduled at ${next.toISOString()}`);
    return { kind: 'success', warning: true, stopChain: true, data: next.toISOString() };
  },
};

export const rescheduleTasks: Record<string, TaskImplementation> = { RESCHEDULE: rescheduleTask };
