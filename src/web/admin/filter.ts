/**
 * The transfer filter of Listing, CancelRestart and Export (web-ui.md §2.3): id range, start-time
 * range in the original's free date text, rule, partner, status checkboxes; `LIMITROW` rows per
 * page (default 48, at least 5, at most 1000); pages follow with the `before` cursor (transfer-page.ts).
 */
import type { TransferFilter } from '../../store/index.js';
import { field, html, type Html } from '../html.js';
import type { Translate } from '../i18n.js';
import { flag, intParam, text, type Params } from '../params.js';

export const FILTER_FIELDS = ['startid', 'stopid', 'start', 'stop', 'rule', 'req', 'pending', 'transfer', 'error', 'done', 'all', 'LIMITROW'] as const;

/**
 * `yyyyMMddHHmmssSSS`, possibly truncated, separators `/ : . - space` ignored; local time.
 * Undefined when not such a date.
 */
export function parseFreeDate(value: string): Date | undefined {
  const digits = value.replace(/[/:.\- ]/g, '');
  if (!/^\d{4,17}$/.test(digits)) return undefined;
  const part = (from: number, len: number, dflt: number): number => (digits.length >= from + len ? Number(digits.slice(from, from + len)) : dflt);
  const d = new Date(part(0, 4, 1970), part(4, 2, 1) - 1, part(6, 2, 1), part(8, 2, 0), part(10, 2, 0), part(12, 2, 0), part(14, 3, 0));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export interface ParsedFilter {
  filter: TransferFilter;
  limit: number;
  /** Problems to show (bad ids or dates are ignored, not fatal). */
  warnings: string[];
}

const DAY_MS = 86_400_000;

export function parseFilter(params: Params, owner: string): ParsedFilter {
  const filter: TransferFilter = { ownerReq: owner };
  const warnings: string[] = [];
  const id = (name: string): bigint | undefined => {
    const v = text(params, name);
    if (v === undefined) return undefined;
    if (!/^-?\d{1,19}$/.test(v)) { warnings.push(`${name}: '${v}' is not a transfer id`); return undefined; }
    return BigInt(v);
  };
  const from = id('startid');
  const to = id('stopid');
  if (from !== undefined) filter.specialIdFrom = from;
  if (to !== undefined) filter.specialIdTo = to;
  const date = (name: string): Date | undefined => {
    const v = text(params, name);
    if (v === undefined) return undefined;
    const d = parseFreeDate(v);
    if (d === undefined) warnings.push(`${name}: '${v}' is not a date (yyyyMMddHHmmssSSS)`);
    return d;
  };
  const start = date('start');
  let stop = date('stop');
  if (start !== undefined && stop !== undefined && stop.getTime() <= start.getTime()) stop = new Date(start.getTime() + DAY_MS - 1);
  if (start !== undefined) filter.startFrom = start;
  if (stop !== undefined) filter.startTo = stop;
  const rule = text(params, 'rule');
  if (rule !== undefined) filter.idRule = rule;
  const req = text(params, 'req');
  if (req !== undefined) filter.partner = req;
  const status = { pending: flag(params, 'pending'), transfer: flag(params, 'transfer'), error: flag(params, 'error'), done: flag(params, 'done') };
  const count = Object.values(status).filter(Boolean).length;
  // None or all four (or "all") = every status.
  if (count > 0 && count < 4 && !flag(params, 'all')) filter.status = status;
  return { filter, limit: Math.min(1000, Math.max(5, intParam(params, 'LIMITROW', 48))), warnings };
}

/** The filter form (GET: it changes nothing, and its pages can be linked). */
export function filterForm(t: Translate, params: Params, action: string): Html {
  return html`<form class="panel" method="get" action="${action}" role="search">
${field(t('startId'), 'startid', params.startid)}${field(t('stopId'), 'stopid', params.stopid)}
${field(t('startDate'), 'start', params.start, 'text', 'placeholder="yyyyMMddHHmm"')}${field(t('stopDate'), 'stop', params.stop, 'text', 'placeholder="yyyyMMddHHmm"')}
${field(t('rule'), 'rule', params.rule)}${field(t('partner'), 'req', params.req)}
${field(t('pending'), 'pending', flag(params, 'pending') ? 'on' : undefined, 'checkbox')}${field(t('inTransfer'), 'transfer', flag(params, 'transfer') ? 'on' : undefined, 'checkbox')}
${field(t('error'), 'error', flag(params, 'error') ? 'on' : undefined, 'checkbox')}${field(t('done'), 'done', flag(params, 'done') ? 'on' : undefined, 'checkbox')}
${field(t('limitRow'), 'LIMITROW', params.LIMITROW ?? '48', 'number', 'min="5"')}
<div class="actions"><button type="submit" name="ACTION" value="Filter">${t('filter')}</button></div></form>`;
}

/** The filter's own parameters, for links and hidden fields. */
export function filterParams(params: Params): Params {
  return Object.fromEntries(FILTER_FIELDS.filter((k) => params[k] !== undefined && params[k] !== '').map((k) => [k, params[k]!]));
}

export function hiddenFields(values: Params): Html {
  return html`${Object.entries(values).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}`;
}
