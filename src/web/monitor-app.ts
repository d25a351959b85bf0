/**
 * The monitoring area (web-ui.md §1): read-only pages without login on `serverhttpport`. Paths are
 * case-insensitive; an unknown path shows the home page, or the view `INFO` selects (0 active,
 * 1 error, 2 done, 3 all, 4 status, 5 statusxml, 6 spooled, 7 statusjson). Lists show only the
 * transfers this server owns, newest start first, `NB` rows per table (0 = no limit).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import type { TransferFilter } from '../store/index.js';
import { formatIsoLocal } from '../model/iso-date.js';
import type { ChartData } from './chart-data.js';
import { chartsPanel } from './charts.js';
import { headerFacts } from './facts.js';
import { html, Html, notice, page, select, field, table, type Frame } from './html.js';
import { pickLang, translator, type Lang, type TextKey, type Translate } from './i18n.js';
import type { LiveBroadcaster } from './live.js';
import { cookie, intParam, readParams, type Params } from './params.js';
import { createWebApp, sendHtml } from './server.js';
import type { WebServices } from './services.js';
import { spooledPage } from './spooled.js';
import { StatusDocuments, statusJson, statusXml } from './status-doc.js';
import { transferPage } from './transfer-page.js';
import { rowAttrs, TRANSFER_HEADERS, transferCells } from './transfer-rows.js';

const DEFAULT_NB = 60;
/** Step statuses of running rows that have their own table in the active view. */
const OWN_TABLE_STEPS = ['i', 'B', 'X', 'P'];
/** The UPDATEDINFO names whose rows each list view shows (a new such row reloads its tables). */
const LIVE_MATCH: Record<string, string> = { active: 'RUNNING,INTERRUPTED,TOSUBMIT', error: 'INERROR,INTERRUPTED', done: 'DONE' };
const VIEWS = ['active', 'error', 'done', 'all', 'status', 'statusxml', 'spooled', 'statusjson'] as const;

export interface MonitorContext {
  services: WebServices;
  live: LiveBroadcaster;
  status: StatusDocuments;
  /** The figures of the home page's pictures (absent: no pictures). */
  charts?: ChartData;
}

interface Query {
  title: TextKey;
  filter: TransferFilter;
  /** Share of NB for this table (error view: 1/2, 1/2, 1/4). */
  share: number;
  /** Keep only rows whose step status is this character (active view). */
  stepChar?: string;
}

/** The tables of each list view (web-ui.md §1.3). */
function viewQueries(view: string, owner: string, now: Date): Query[] {
  const o = { ownerReq: owner };
  const due = { ...o, startTo: now };
  switch (view) {
    case 'active': return [
      // Running rows in any other step status (Running 'z' mostly) share the first table.
      { title: 'cat_running', filter: { ...o, updatedInfo: [UpdatedInfo.RUNNING] }, share: 1, stepChar: '*' },
      { title: 'cat_interrupted', filter: { ...due, updatedInfo: [UpdatedInfo.INTERRUPTED] }, share: 1 },
      { title: 'cat_tosubmit', filter: { ...due, updatedInfo: [UpdatedInfo.TOSUBMIT] }, share: 1 },
      { title: 'cat_initok', filter: { ...o, updatedInfo: [UpdatedInfo.RUNNING] }, share: 1, stepChar: 'i' },
      { title: 'cat_preok', filter: { ...o, updatedInfo: [UpdatedInfo.RUNNING] }, share: 1, stepChar: 'B' },
      { title: 'cat_transferok', filter: { ...o, updatedInfo: [UpdatedInfo.RUNNING] }, share: 1, stepChar: 'X' },
      { title: 'cat_postok', filter: { ...o, updatedInfo: [UpdatedInfo.RUNNING] }, share: 1, stepChar: 'P' },
    ];
    case 'error': return [
      { title: 'cat_inerror', filter: { ...due, updatedInfo: [UpdatedInfo.INERROR] }, share: 0.5 },
      { title: 'cat_interrupted', filter: { ...due, updatedInfo: [UpdatedInfo.INTERRUPTED] }, share: 0.5 },
      { title: 'cat_errortask', filter: { ...due, globalStep: [TaskStep.ERRORTASK] }, share: 0.25 },
    ];
    case 'done': return [{ title: 'cat_done', filter: { ...o, updatedInfo: [UpdatedInfo.DONE] }, share: 1 }];
    default: return [{ title: 'cat_all', filter: o, share: 1 }];
  }
}

export function langOf(req: FastifyRequest, params: Params, serverLang?: Lang): { lang: Lang; setCookie: Record<string, string> } {
  const lang = pickLang(params.setLng, cookie(req, 'i18next'), serverLang);
  return { lang, setCookie: params.setLng !== undefined ? { 'set-cookie': `i18next=${lang}; Path=/; SameSite=Lax` } : {} };
}

function frame(ctx: MonitorContext, lang: Lang, path: string, extra: Partial<Frame> = {}): Frame {
  const t = translator(lang);
  const { rest } = ctx.services;
  const f = headerFacts(rest.counters, rest.config.limits.runLimit);
  return {
    lang, t, path, title: `svc-r66 ${t('monitoring')}: ${rest.config.hostId}`,
    facts: [
      [t('date'), formatIsoLocal(rest.now())],
      [t('bandwidth'), f.bandwidth, 'bandwidth'],
      [t('localConnections'), f.channels, 'channels'],
      [t('networkConnections'), f.connections, 'connections'],
    ],
    nav: [
      [t('monitoring'), '/', path === '/'], [t('active'), '/active', path === '/active'], [t('error'), '/error', path === '/error'],
      [t('done'), '/done', path === '/done'], [t('all'), '/all', path === '/all'], [t('status'), '/status', path === '/status'],
      [t('spooled'), '/spooled', path === '/spooled'],
    ],
    ...extra,
  };
}

async function home(ctx: MonitorContext, lang: Lang): Promise<string> {
  const t = translator(lang);
  const links: Array<[TextKey, string]> = [
    ['active', '/active'], ['error', '/error'], ['done', '/done'], ['all', '/all'], ['statusXml', '/statusxml'], ['statusXmlDetail', '/statusxml?DETAIL=1'],
    ['statusJson', '/statusjson'], ['statusJsonDetail', '/statusjson?DETAIL=1'], ['spooled', '/spooled'], ['spooledDetail', '/spooleddetail?DETAIL=1'],
  ];
  // The pictures are redrawn by the page every 10 s (its `data-live-every` box); the figures are shared.
  let charts: Html = html``;
  if (ctx.charts !== undefined) {
    const drawn = await ctx.charts.figures().then((f) => chartsPanel(f, t), () => notice(t('chartsDown'), false));
    charts = html`<div data-live-tables data-live-every="10">${drawn}</div>`;
  }
  const body = html`${charts}<ul class="links">${links.map(([k, href]) => html`<li><a href="${href}">${t(k)}</a></li>`)}</ul>
<h2>${t('specific')}</h2><form class="panel" method="get" action="/specific">
${select(t('show'), 'INFO', [['0', t('active')], ['1', t('error')], ['2', t('done')], ['3', t('all')], ['4', t('status')]], '0')}
${field(t('rows'), 'NB', String(DEFAULT_NB), 'number', 'min="0"')}<div class="actions"><button type="submit">${t('show')}</button></div></form>`;
  return page(frame(ctx, lang, '/', { live: '/events' }), body);
}

/** The rows of one list view, each table limited to its share of `nb` (0 = all). */
export async function listTables(services: WebServices, view: string, nb: number, t: Translate): Promise<Html> {
  const { rest } = services;
  const tables: Html[] = [];
  // The step-status tables share one read of the newest running rows (a bounded one when NB is set).
  let running: Promise<TransferRecord[]> | undefined;
  const runningRows = (filter: TransferFilter): Promise<TransferRecord[]> =>
    (running ??= rest.store.runner.list(filter, { orderBy: 'start', descending: true, ...(nb > 0 ? { limit: nb * 3 } : {}) }));
  for (const q of viewQueries(view, rest.config.hostId, rest.now())) {
    const limit = nb > 0 ? Math.max(1, Math.floor(nb * q.share)) : undefined;
    const rows: TransferRecord[] = q.stepChar !== undefined
      ? (await runningRows(q.filter)).filter((r) => r.stepStatus.char === q.stepChar || (q.stepChar === '*' && !OWN_TABLE_STEPS.includes(r.stepStatus.char))).slice(0, limit)
      : limit !== undefined ? (await transferPage(rest.store.runner, q.filter, limit)).rows
        : await rest.store.runner.list(q.filter, { orderBy: 'start', descending: true });
    const isRunning = (r: TransferRecord): boolean => rest.transfers?.isRunning(r) ?? false;
    tables.push(table(t(q.title), TRANSFER_HEADERS, rows.map((r) => transferCells(r, isRunning(r))), rows.map(rowAttrs)));
  }
  return html`${tables}`;
}

/** `/status` (web-ui.md §1.4): 500 with one line per problem, 200 without, 503 when the database fails. */
async function statusPage(ctx: MonitorContext, lang: Lang): Promise<{ code: number; body: Html }> {
  const t = translator(lang);
  const { store, config, now } = ctx.services.rest;
  const base = { ownerReq: config.hostId, startTo: now() };
  try {
    const problems: TextKey[] = [];
    if (await store.runner.count({ ...base, updatedInfo: [UpdatedInfo.INERROR] }) > 0) problems.push('problemError');
    if (await store.runner.count({ ...base, updatedInfo: [UpdatedInfo.INTERRUPTED] }) > 0) problems.push('problemInterrupted');
    if (await store.runner.count({ ...base, globalStep: [TaskStep.ERRORTASK] }) > 0) problems.push('problemErrorTask');
    if (problems.length === 0) return { code: 200, body: notice(t('noProblem'), true) };
    return { code: 500, body: html`${problems.map((p) => notice(t(p), false))}` };
  } catch {
    return { code: 503, body: notice(t('databaseDown'), false) };
  }
}

function viewOf(path: string, params: Params): string {
  const name = path.replace(/^\/+/, '').replace(/\.html?$/, '').toLowerCase();
  if (name.startsWith('spooleddetail')) return 'spooleddetail';
  if (name.startsWith('spooled')) return 'spooled';
  if ((VIEWS as readonly string[]).includes(name)) return name;
  const info = params.INFO?.charAt(0);
  if (info !== undefined && /^[0-7]$/.test(info)) {
    const view = VIEWS[Number(info)]!;
    return view === 'spooled' && Number(params.DETAIL ?? 0) > 0 ? 'spooleddetail' : view;
  }
  return 'home';
}

async function handle(ctx: MonitorContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const path = (req.raw.url ?? '/').split('?')[0]!;
  if (path.toLowerCase() === '/events') {
    reply.hijack();
    ctx.live.serve(reply.raw, { address: req.ip });
    return reply;
  }
  const { params } = readParams(req);
  const { lang, setCookie } = langOf(req, params, ctx.services.serverLang.value);
  const t = translator(lang);
  const view = viewOf(path, params);
  const nb = intParam(params, 'NB', -1);
  const detail = intParam(params, 'DETAIL', 0) > 0;
  switch (view) {
    case 'statusxml':
    case 'statusjson': {
      const tree = await ctx.status.tree(nb > 0 ? nb : undefined, detail);
      return view === 'statusxml' ? reply.type('text/xml; charset=utf-8').headers(setCookie).send(statusXml(tree)) : reply.type('application/json; charset=utf-8').headers(setCookie).send(statusJson(tree));
    }
    case 'status': {
      const s = await statusPage(ctx, lang);
      return sendHtml(reply, page(frame(ctx, lang, '/status'), html`<h2>${t('status')}</h2>${s.body}`), s.code, setCookie);
    }
    case 'spooled':
    case 'spooleddetail': {
      const body = spooledPage(ctx.services.rest.fileMonitors.list(), t, { detail: view === 'spooleddetail' || detail, name: params.name, status: intParam(params, 'status', 0), now: ctx.services.rest.now(), base: '/spooled' });
      return sendHtml(reply, page(frame(ctx, lang, `/${view}`), body), 200, setCookie);
    }
    case 'home':
      return sendHtml(reply, await home(ctx, lang), 200, setCookie);
    default: {
      const tables = await listTables(ctx.services, view, nb < 0 ? DEFAULT_NB : nb, t);
      // The original refreshes list pages every 10 s; the live events (engine and database) replace that.
      const live = { live: '/events', liveMatch: LIVE_MATCH[view] ?? '*', liveOwner: ctx.services.rest.config.hostId };
      return sendHtml(reply, page(frame(ctx, lang, `/${view}`, live), html`<h2>${t(view as TextKey)}</h2><div data-live-tables ${view === 'active' ? new Html('data-live-steps') : ''}>${tables}</div>`), 200, setCookie);
    }
  }
}

export async function createMonitorApp(ctx: MonitorContext): Promise<FastifyInstance> {
  const app = createWebApp(ctx.services.rest.log, undefined, { compress: ctx.services.rest.config.server.useHttpCompression, limits: { name: 'web-monitoring', config: ctx.services.rest.config } });
  app.route({ method: ['GET', 'POST', 'HEAD'], url: '/*', handler: (req, reply) => handle(ctx, req, reply) });
  app.route({ method: ['PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: '/*', handler: (_req, reply) => reply.code(405).send() });
  return app;
}

