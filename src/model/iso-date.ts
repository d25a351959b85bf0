/**
 * ISO 8601 dates as the original's REST layers read and write them (rest-v2.md §9, rest-v1.md §6):
 * output with milliseconds and the server zone's numeric offset (`Z` for UTC); input lenient
 * (date alone, optional seconds, fraction and offset; no offset = server local time).
 */
const pad = (n: number, w = 2): string => String(Math.abs(n)).padStart(w, '0');

/** `2024-05-13T10:00:00.000+02:00` in the server's zone (`...Z` when the offset is zero). */
export function formatIsoLocal(d: Date): string {
  const offsetMin = -d.getTimezoneOffset();
  const zone = offsetMin === 0 ? 'Z' : `${offsetMin > 0 ? '+' : '-'}${pad(Math.trunc(offsetMin / 60))}:${pad(offsetMin % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}${zone}`;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Parses a lenient ISO 8601 date or date-time; undefined when it is not one. */
export function parseIsoDate(text: string): Date | undefined {
  const m = ISO.exec(text.trim());
  if (m === null) return undefined;
  const [, y, mo, da, h = '0', mi = '0', s = '0', frac = '0', zone] = m;
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const parts = [Number(y), Number(mo) - 1, Number(da), Number(h), Number(mi), Number(s), ms] as const;
  if (parts[1] > 11 || parts[2] < 1 || parts[2] > 31 || parts[3] > 23 || parts[4] > 59 || parts[5] > 60) return undefined;
  if (zone === undefined) {
    const d = new Date(...parts);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  let offset = 0;
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    offset = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * (zone.startsWith('-') ? -1 : 1);
  }
  const d = new Date(Date.UTC(...parts) - offset * 60_000);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
