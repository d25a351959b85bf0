/**
 * Transfer pages of the administration area (web-ui.md §2.3): Listing, CancelRestart (one or all
 * matching: stop, cancel, cancel-and-clean, restart), CreateTransfer and Export. Every order goes
 * through the transfer-order service (src/operations), as REST does.
 */
import { basename } from 'node:path';
import { hasRole, Role } from '../../config/index.js';
import { ErrorCode } from '../../model/error-code.js';
import { UpdatedInfo, type TransferKey, type TransferRecord } from '../../model/transfer.js';
import { R66Error } from '../../model/r66-error.js';
import type { TransferOrder } from '../../operations/index.js';
import { exportHistoryV1 } from '../../admin/index.js';
import { field, html, Html, notice, table } from '../html.js';
import { flag, intParam, text, type Params } from '../params.js';
import { rowAttrs, TRANSFER_HEADERS, transferCells } from '../transfer-rows.js';
import type { PageAnswer, PageRequest } from './context.js';
import { filterForm, filterParams, hiddenFields, parseFilter, parseFreeDate } from './filter.js';
import { transferPage } from '../transfer-page.js';

const ROW_ACTIONS = ['Stop', 'Cancel', 'CancelClean', 'Restart'] as const;
type RowAction = (typeof ROW_ACTIONS)[number];
const BULK_ACTIONS: Record<string, RowAction> = { StopAll: 'Stop', StopCleanAll: 'CancelClean', RestartAll: 'Restart' };

function linkTo(page: string, params: Params): string {
  const q = new URLSearchParams(params).toString();
  return q === '' ? page : `${page}?${q}`;
}

/**
 * `seeallid` (web-ui.md §2.1, config.md §3.15): a CONFIGADMIN user named in the comma-separated
 * `<seeallid>` of this host's HOSTCONFIG OTHERS sees the transfers of every owner sharing the
 * database. Undefined: this server's transfers only.
 */
export async function seeAllOwners(r: PageRequest): Promise<string[] | undefined> {
  const { rest } = r.ctx.services;
  if (!hasRole(r.session.role, Role.CONFIGADMIN)) return undefined;
  const others = (await rest.store.hostConfigs.get(rest.config.hostId))?.others ?? '';
  const ids = (/<seeallid>([^<]*)<\/seeallid>/i.exec(others)?.[1] ?? '').split(',').map((s) => s.trim());
  if (!ids.includes(r.session.user)) return undefined;
  return ownersOf(rest.store, rest.config.hostId);
}

/** How long the owner list of a store is reused before it is probed again. */
const OWNERS_TTL_MS = 60_000;
const ownerCache = new WeakMap<object, { at: number; owners: Promise<string[]> }>();

/**
 * The owners of RUNNER rows: this host, and the partner table's host ids (a server or client that
 * writes to this database has its entry there) that own at least one row, found by one index seek
 * per status (never a scan), kept a minute: a page splits by owner, and an owner without rows would
 * cost each page its probes.
 */
function ownersOf(store: PageRequest['ctx']['services']['rest']['store'], own: string): Promise<string[]> {
  const cached = ownerCache.get(store);
  if (cached !== undefined && Date.now() - cached.at < OWNERS_TTL_MS) return cached.owners;
  const owners = (async () => {
    const found = [own];
    for (const h of await store.hosts.list()) {
      if (h.hostId === own) continue;
      for (const u of [UpdatedInfo.DONE, UpdatedInfo.INERROR, UpdatedInfo.TOSUBMIT, UpdatedInfo.RUNNING, UpdatedInfo.INTERRUPTED, UpdatedInfo.NOTUPDATED, UpdatedInfo.UNKNOWN]) {
        if ((await store.runner.list({ ownerReq: h.hostId, updatedInfo: [u] }, { orderBy: 'start', descending: true, limit: 1 })).length > 0) {
          found.push(h.hostId);
          break;
        }
      }
    }
    return found;
  })();
  ownerCache.set(store, { at: Date.now(), owners });
  owners.catch(() => ownerCache.delete(store));
  return owners;
}

/** The page of matching transfers, newest start first, with next/previous links; `seeAll`: every owner's (seeallid). */
async function transferTable(r: PageRequest, page: string, actions: boolean, seeAll = false): Promise<Html> {
  const { t, params, ctx } = r;
  const { rest } = ctx.services;
  const f = parseFilter(params, rest.config.hostId);
  const owners = seeAll ? await seeAllOwners(r) : undefined;
  // Keyset pages (no count, no offset): as fast on the last page of a large table as on the first.
  const { rows: shown, next } = await transferPage(rest.store.runner, f.filter, f.limit, params.before, owners === undefined ? {} : { owners });
  const isRunning = (rec: TransferRecord): boolean => rest.transfers?.isRunning(rec) ?? false;
  const headers = [...TRANSFER_HEADERS, ...(owners !== undefined ? ['OWNERREQ'] : []), ...(actions ? [t('actions')] : [])];
  const cells = shown.map((rec) => {
    const c = transferCells(rec, isRunning(rec));
    if (owners !== undefined) c.push(html`${rec.ownerReq}`);
    // Orders act on this server's transfers only: another owner's row has no buttons.
    if (actions) c.push(rec.ownerReq === rest.config.hostId ? rowActions(r, page, rec) : html``);
    return c;
  });
  const base = filterParams(params);
  const nav = html`<p class="pager">${params.before !== undefined ? html`<a href="${linkTo(page, base)}" rel="first">${t('firstPage')}</a> ` : ''}
${next !== undefined ? html`<a href="${linkTo(page, { ...base, before: next })}" rel="next">${t('next')}</a>` : ''}</p>`;
  // The live script reloads the table from `data-src` (the filter as a GET link) when a row changes section or a new one comes.
  return html`${f.warnings.map((w) => notice(w, false))}<div data-live-tables data-src="${linkTo(page, params.before !== undefined ? { ...base, before: params.before } : base)}">${table(t('transfers'), headers, cells, shown.map(rowAttrs), { pinLast: actions })}</div>${nav}`;
}

function rowActions(r: PageRequest, page: string, rec: TransferRecord): Html {
  const keys = html`<input type="hidden" name="specid" value="${rec.specialId.toString()}"><input type="hidden" name="reqd" value="${rec.requested}"><input type="hidden" name="reqr" value="${rec.requester}">${hiddenFields(filterParams(r.params))}`;
  const label = { Stop: r.t('stop'), Cancel: r.t('cancel'), CancelClean: r.t('cancelClean'), Restart: r.t('restart') };
  const edit = linkTo('CreateTransfer.html', { SPECIALID: rec.specialId.toString(), REQUESTER: rec.requester, REQUESTED: rec.requested, OWNERREQ: rec.ownerReq });
  return html`${ROW_ACTIONS.map((a) => r.form(html`${keys}<button type="submit" class="minor" name="ACTION" value="${a}" aria-label="${label[a]} ${rec.specialId.toString()}">${label[a]}</button>`, { className: 'inline', action: page }))}
<a href="${edit}" aria-label="${r.t('updateTransfer')} ${rec.specialId.toString()}">${r.t('update')}</a>`;
}

export async function listingPage(r: PageRequest): Promise<PageAnswer> {
  return { body: html`<h2>${r.t('listing')}</h2>${filterForm(r.t, r.params, 'Listing.html')}${await transferTable(r, 'Listing.html', false, true)}`, live: true };
}

async function order(r: PageRequest, action: RowAction, ref: TransferKey): Promise<{ ok: boolean; message: string; record?: TransferRecord }> {
  const { orders } = r.ctx;
  try {
    // A transfer another process runs is refused by the order service (running-elsewhere.ts), with its reason.
    const res = action === 'Stop' ? await orders.stop(ref) : action === 'Cancel' ? await orders.cancel(ref)
      : action === 'CancelClean' ? await orders.cancelAndClean(ref) : await orders.restart(ref);
    const ok = res.code === ErrorCode.CompleteOk || res.code === ErrorCode.PreProcessingOk;
    return { ok, message: `${action} ${ref.specialId}: ${res.message}`, ...(res.record ? { record: res.record } : {}) };
  } catch (err) {
    return { ok: false, message: `${action} ${ref.specialId}: ${err instanceof R66Error ? err.message : 'failed (see the server log)'}` };
  }
}

export async function cancelRestartPage(r: PageRequest): Promise<PageAnswer> {
  const { t, params, ctx } = r;
  const { rest } = ctx.services;
  const owner = rest.config.hostId;
  const results: Html[] = [];
  const action = params.ACTION ?? '';
  if (r.posted && (ROW_ACTIONS as readonly string[]).includes(action)) {
    const id = text(params, 'specid');
    const reqd = text(params, 'reqd');
    const reqr = text(params, 'reqr');
    if (id === undefined || !/^-?\d{1,19}$/.test(id) || reqd === undefined || reqr === undefined) results.push(notice('specid, reqd and reqr are required', false));
    else {
      const res = await order(r, action as RowAction, { specialId: BigInt(id), requested: reqd, requester: reqr, ownerReq: owner });
      results.push(notice(res.message, res.ok));
      if (res.record) results.push(table(t('result'), TRANSFER_HEADERS, [transferCells(res.record, rest.transfers?.isRunning(res.record) ?? false)], [rowAttrs(res.record)]));
    }
  } else if (r.posted && BULK_ACTIONS[action] !== undefined) {
    const each = BULK_ACTIONS[action];
    const matching = await rest.store.runner.list(parseFilter(params, owner).filter, { orderBy: 'specialId' });
    let ok = 0;
    const failures: string[] = [];
    for (const rec of matching) {
      const res = await order(r, each, rec);
      if (res.ok) ok++;
      else failures.push(res.message);
    }
    results.push(notice(`${action}: ${ok}/${matching.length} ${t('done_')}`, failures.length === 0));
    for (const f of failures.slice(0, 20)) results.push(notice(f, false));
  }
  let searched: Html = html``;
  const follow = text(params, 'followId');
  if (action === 'Search' && follow !== undefined) {
    if (!/^-?\d{1,19}$/.test(follow)) results.push(notice(`followId: '${follow}' is not a number`, false));
    else {
      const rows = await rest.store.runner.list({ ownerReq: owner, followId: BigInt(follow) }, { orderBy: 'start', descending: true, limit: 1000 });
      searched = table(`${t('followId')} ${follow}`, [...TRANSFER_HEADERS, t('actions')], rows.map((rec) => [...transferCells(rec, rest.transfers?.isRunning(rec) ?? false), rowActions(r, 'CancelRestart.html', rec)]), rows.map(rowAttrs), { pinLast: true });
    }
  }
  const search = html`<form class="panel" method="get" action="CancelRestart.html" role="search">${field(t('followId'), 'followId', params.followId)}<div class="actions"><button type="submit" name="ACTION" value="Search">${t('search')}</button></div></form>`;
  const bulk = r.form(html`${hiddenFields(filterParams(params))}<div class="actions">
<button type="submit" class="danger" name="ACTION" value="StopAll">${t('stopAll')}</button>
<button type="submit" class="danger" name="ACTION" value="StopCleanAll">${t('stopCleanAll')}</button>
<button type="submit" name="ACTION" value="RestartAll">${t('restartAll')}</button></div>`, { confirm: t('actions'), action: 'CancelRestart.html' });
  return {
    body: html`<h2>${t('cancelRestart')}</h2>${results}${search}${searched}${filterForm(t, params, 'CancelRestart.html')}${bulk}${await transferTable(r, 'CancelRestart.html', true, true)}`,
    live: true,
  };
}

/** The stored transfer the Update form names (`SPECIALID`, `REQUESTER`, `REQUESTED`, `OWNERREQ`), or why not. */
async function storedToUpdate(r: PageRequest): Promise<TransferRecord | string | undefined> {
  const { params, ctx } = r;
  const id = text(params, 'SPECIALID');
  if (id === undefined) return undefined;
  const { rest } = ctx.services;
  const requester = text(params, 'REQUESTER');
  const requested = text(params, 'REQUESTED');
  const owner = text(params, 'OWNERREQ') ?? rest.config.hostId;
  if (!/^-?\d{1,19}$/.test(id) || requester === undefined || requested === undefined) return 'SPECIALID, REQUESTER and REQUESTED are required';
  if (owner !== rest.config.hostId) return `transfer ${id} belongs to ${owner}: only this server's transfers can be updated`;
  const record = await rest.store.runner.get({ specialId: BigInt(id), requester, requested, ownerReq: owner });
  if (record === undefined) return `transfer ${id} (${requester} -> ${requested}) is not known`;
  return record;
}

/**
 * CreateTransfer `Update` (web-ui.md §2.3): the stored transfer becomes the order the form gives
 * (rule, file, start, block size, information, follow id; the requested host stays), checked by the
 * transfer-order service (TransferOrders.replace: a new submission with the same id), and goes
 * back to the scheduler (TOSUBMIT, from its start). Refused while it runs, once it is finished, or
 * when this server is not its requester (the partner's own requests are not ours to resubmit).
 */
async function updateTransfer(r: PageRequest, stored: TransferRecord): Promise<{ ok: boolean; message: string; record?: TransferRecord }> {
  const { params, ctx } = r;
  const { rest } = ctx.services;
  const label = `Update ${stored.specialId}`;
  const host = text(params, 'host');
  if (host !== undefined && host !== stored.requested) return { ok: false, message: `${label}: the requested host cannot change (${stored.requested})` };
  const start = text(params, 'startdate');
  const at = start !== undefined ? parseFreeDate(start) : undefined;
  if (start !== undefined && at === undefined) return { ok: false, message: `startdate: '${start}' is not a date (yyyy/MM/dd HH:mm)` };
  const follow = text(params, 'followid');
  if (follow !== undefined && !/^-?\d{1,19}$/.test(follow)) return { ok: false, message: `followid: '${follow}' is not a number` };
  const info = text(params, 'transferinfo');
  const order: Omit<TransferOrder, 'id' | 'partner'> = {
    rule: text(params, 'rule') ?? stored.idRule, file: text(params, 'filename') ?? stored.originalName, md5: true,
    fileInfo: follow !== undefined ? `${info ?? 'noinfo'} {"follow":${follow}}` : info ?? stored.fileInfo,
  };
  const block = intParam(params, 'blocksize', 0);
  order.blockSize = block > 0 ? Math.min(block, rest.config.limits.blockSize) : stored.blockSize;
  // Without a start date, the stored one (a scheduled transfer keeps its time).
  order.start = at ?? stored.start;
  try {
    // Checks (requester, running, finished, partner, rule, file policy) and the swap of rows: TransferOrders.replace.
    const record = await ctx.orders.replace(stored, order);
    rest.log.info({ id: String(stored.specialId), partner: stored.requested, rule: record.idRule }, 'web administration: transfer updated and resubmitted');
    return { ok: true, message: `${label}: ${r.t('done_')}`, record };
  } catch (err) {
    return { ok: false, message: `${label}: ${err instanceof R66Error ? err.message : 'failed (see the server log)'}` };
  }
}

export async function createTransferPage(r: PageRequest): Promise<PageAnswer> {
  const { t, params, ctx } = r;
  const { rest } = ctx.services;
  const results: Html[] = [];
  const stored = await storedToUpdate(r);
  if (typeof stored === 'string') results.push(notice(stored, false));
  if (r.posted && params.ACTION === 'Create') {
    const host = text(params, 'host');
    const rule = text(params, 'rule');
    const file = text(params, 'filename');
    const missing = [['host', host], ['rule', rule], ['filename', file]].filter(([, v]) => v === undefined).map(([k]) => k);
    const start = text(params, 'startdate');
    const at = start !== undefined ? parseFreeDate(start) : undefined;
    if (missing.length > 0) results.push(notice(`${missing.join(', ')} ${t('required')}`, false));
    else if (start !== undefined && at === undefined) results.push(notice(`startdate: '${start}' is not a date (yyyy/MM/dd HH:mm)`, false));
    else {
      const follow = text(params, 'followid');
      const info = text(params, 'transferinfo') ?? '';
      const order: TransferOrder = { partner: host!, rule: rule!, file: file!, md5: true };
      const block = intParam(params, 'blocksize', 0);
      if (block > 0) order.blockSize = Math.min(block, rest.config.limits.blockSize);
      if (at !== undefined) order.start = at;
      if (info !== '') order.fileInfo = info;
      if (follow !== undefined) {
        if (!/^-?\d{1,19}$/.test(follow)) results.push(notice(`followid: '${follow}' is not a number`, false));
        // The given follow id in FILEINFO, where the client writes one (the service then adds none).
        order.fileInfo = `${info === '' ? 'noinfo' : info} {"follow":${follow}}`;
      }
      if (results.length === 0) {
        try {
          const rec = await ctx.orders.submit(order);
          results.push(notice(`${t('submit')}: ${rec.specialId} ${t('done_')}`, true));
          results.push(table(t('result'), TRANSFER_HEADERS, [transferCells(rec, false)], [rowAttrs(rec)]));
        } catch (err) {
          results.push(notice(err instanceof R66Error ? err.message : 'the transfer could not be created (see the server log)', false));
        }
      }
    }
  }
  let editing = typeof stored === 'object' ? stored : undefined;
  if (r.posted && params.ACTION === 'Update') {
    if (editing === undefined) {
      if (stored === undefined) results.push(notice('SPECIALID, REQUESTER and REQUESTED are required', false));
    } else {
      const res = await updateTransfer(r, editing);
      results.push(notice(res.message, res.ok));
      if (res.record) {
        results.push(table(t('result'), TRANSFER_HEADERS, [transferCells(res.record, false)], [rowAttrs(res.record)]));
        editing = res.record;
      }
    }
  }
  const hosts = (await rest.store.hosts.list()).map((h) => h.hostId);
  const rules = (await rest.store.rules.list()).map((x) => x.idRule);
  // Updating: the stored values fill the form (what was posted wins), the key rides along hidden.
  const value = (name: string, fromRow: string | undefined): string | undefined => params[name] ?? fromRow;
  const e = editing;
  const keyFields = e === undefined ? html`` : hiddenFields({ SPECIALID: e.specialId.toString(), REQUESTER: e.requester, REQUESTED: e.requested, OWNERREQ: e.ownerReq });
  const form = r.form(html`${keyFields}${field(t('host'), 'host', e?.requested ?? params.host, 'text', `required list="hostlist"${e ? ' readonly' : ''}`)}<datalist id="hostlist">${hosts.map((h) => html`<option value="${h}">`)}</datalist>
${field(t('rule'), 'rule', value('rule', e?.idRule), 'text', 'required list="rulelist"')}<datalist id="rulelist">${rules.map((x) => html`<option value="${x}">`)}</datalist>
${field(t('file'), 'filename', value('filename', e?.originalName), 'text', 'required')}${field(t('transferInfo'), 'transferinfo', value('transferinfo', e?.fileInfo))}
${field(t('startAt'), 'startdate', value('startdate', e ? formatFreeDate(e.start) : undefined))}${field(t('blockSize'), 'blocksize', value('blocksize', e ? String(e.blockSize) : undefined), 'number', 'min="1"')}${field(t('followId'), 'followid', params.followid)}
<div class="actions">${e === undefined ? html`<button type="submit" name="ACTION" value="Create">${t('create')}</button>`
    : html`<button type="submit" name="ACTION" value="Update">${t('updateTransfer')} ${e.specialId.toString()}</button>`}</div>`, { action: 'CreateTransfer.html' });
  return { body: html`<h2>${e === undefined ? t('create') : html`${t('updateTransfer')} ${e.specialId.toString()}`}</h2>${results}${form}` };
}

/** `yyyy/MM/dd HH:mm` in local time, as the start date field reads it back (parseFreeDate). */
function formatFreeDate(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}/${p(d.getMonth() + 1)}/${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export async function exportPage(r: PageRequest): Promise<PageAnswer> {
  const { t, params, ctx } = r;
  const { rest } = ctx.services;
  const results: Html[] = [];
  if (r.posted && params.ACTION === 'Export') {
    const f = parseFilter(params, rest.config.hostId).filter;
    const res = await exportHistoryV1({ store: rest.store, hostId: rest.config.hostId, archiveDir: rest.config.directories.arch, now: rest.now }, {
      ...(f.startFrom ? { start: f.startFrom } : {}), ...(f.startTo ? { stop: f.startTo } : {}),
      ...(f.specialIdFrom !== undefined ? { startId: f.specialIdFrom } : {}), ...(f.specialIdTo !== undefined ? { stopId: f.specialIdTo } : {}),
      ...(f.idRule ? { rule: f.idRule } : {}), ...(f.partner ? { partner: f.partner } : {}), ...(f.status ?? {}), purge: flag(params, 'purge'),
    });
    results.push(res.exported === 0 ? notice(t('nothingToExport'), false)
      : html`${notice(`${res.exported} ${t('exported')}, ${res.purged} ${t('purged')}`, true)}<p><a href="/arch/${encodeURIComponent(basename(res.file))}" download>${t('download')} ${basename(res.file)}</a></p>`);
  }
  const form = r.form(html`${hiddenFields(filterParams(params))}${field(t('purge'), 'purge', undefined, 'checkbox')}<div class="actions"><button type="submit" name="ACTION" value="Export">${t('export')}</button></div>`, { action: 'Export.html' });
  // Live like the other pages listing transfers: what the export would take, as the database has it now.
  return { body: html`<h2>${t('export')}</h2>${results}${filterForm(t, params, 'Export.html')}${form}${await transferTable(r, 'Export.html', false)}`, live: true };
}
