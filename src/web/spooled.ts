/**
 * The FileWatcher pages (web-ui.md §1.6), shared by both areas: one row per watcher that reported
 * to this server, its freshness coloured (fresh within two scan intervals, late within ten, else
 * stale), and either the number of files with a Detail link or the detailed file table.
 */
import type { FileMonitorReport } from '../http/context.js';
import { formatIsoLocal } from '../model/iso-date.js';
import { html, Html, table } from './html.js';
import type { Translate } from './i18n.js';

export interface SpooledOptions {
  detail: boolean;
  name: string | undefined;
  /** 1 = only fresh, -1 = only stale, 0 = all. */
  status: number;
  now: Date;
  /** Path of the page (links keep it). */
  base: string;
}

function freshness(r: FileMonitorReport, now: Date): 'fresh' | 'late' | 'stale' {
  const interval = Math.max(r.detail?.interval ?? 1000, 1000);
  const age = now.getTime() - r.lastUpdate;
  return age <= 2 * interval ? 'fresh' : age <= 10 * interval ? 'late' : 'stale';
}

export function spooledPage(reports: FileMonitorReport[], t: Translate, o: SpooledOptions): Html {
  const selected = reports.filter((r) => (o.name === undefined || r.name === o.name)
    && (o.status === 0 || (o.status > 0 ? freshness(r, o.now) === 'fresh' : freshness(r, o.now) !== 'fresh')));
  const links = html`<p class="links"><a href="${o.base}">${t('noDetail')}</a> · <a href="${o.base}?DETAIL=1">${t('detail')}</a> ·
<a href="${o.base}?status=-1">${t('onlyKo')}</a> · <a href="${o.base}?status=1">${t('onlyOk')}</a></p>`;
  if (selected.length === 0) return html`<h2>${t('watchers')}</h2>${links}<p>${t('noWatcher')}</p>`;
  const rows = selected.map((r): Html[] => {
    const d = r.detail;
    const files = d === undefined ? html`` : o.detail
      ? table(t('files'), ['file', 'hash', 'last time', 'used time', 'used', 'id'], d.files.map((f) => [
        html`${f.path}`, html`${f.hash ?? ''}`, html`${f.lastTime === null ? '' : formatIsoLocal(new Date(f.lastTime))}`,
        html`${f.usedTime === null ? '' : formatIsoLocal(new Date(f.usedTime))}`, html`${f.used ? 'yes' : 'no'}`, html`${f.id}`]))
      : html`${d.files.length} <a href="${o.base}?DETAIL=1&amp;name=${encodeURIComponent(r.name)}">${t('detail')}</a>`;
    return [
      html`${r.name}`, html`${r.host}`, html`<span class="${freshness(r, o.now)}">${formatIsoLocal(new Date(r.lastUpdate))}</span>`,
      html`${d ? `${d.globalOk} / ${d.globalError} / ${d.todayOk} / ${d.todayError}` : ''}`, html`${d?.interval ?? ''}`, html`${d?.stopFile ?? ''}`,
      html`${d?.statusFile ?? ''}`, html`${d ? String(d.subDirs) : ''}`, html`${d?.directories.join(', ') ?? ''}`, files,
    ];
  });
  return html`<h2>${t('watchers')}</h2>${links}${table(t('watchers'), [t('name'), t('host'), t('lastUpdate'), t('counters'), t('interval'), t('stopFile'), t('statusFile'), t('subDirs'), t('directories'), t('files')], rows)}`;
}
