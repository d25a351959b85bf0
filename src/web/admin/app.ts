/**
 * The administration area (web-ui.md §2) on `serverhttpsport`, HTTPS only. Every request needs a
 * session except the logon form and the two assets; a POST must carry the session's CSRF token
 * (and a same-origin Origin or Referer when the browser sends one; the logon too, which has no
 * session yet: login CSRF); the page name (path up to its first `.`,
 * case-sensitive) selects the page, unknown names the Start page; each page checks its role.
 * Archive downloads (`/arch/<file>`) need a session with SYSTEM, unlike the original (its trap).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { TlsOptions } from 'node:tls';
import { formatRoleSet, hasRole, Role } from '../../config/index.js';
import type { AuthGuard } from '../../http/auth-guard.js';
import { safeEqual } from '../../http/credentials.js';
import { maskRuleFileText } from '../../admin/config-files.js';
import { formatIsoLocal } from '../../model/iso-date.js';
import { field, html, notice, page, type Frame, type Html } from '../html.js';
import { pickLang, translator, type Lang, type TextKey } from '../i18n.js';
import { headerFacts } from '../facts.js';
import type { LiveBroadcaster } from '../live.js';
import { cookie, readParams, type Params } from '../params.js';
import { createWebApp, sendHtml } from '../server.js';
import { csrfForm, type AdminContext, type PageAnswer, type PageRequest } from './context.js';
import { checkLogin } from './login.js';
import { hostsPage, rulesPage } from './pages-config.js';
import { startPage, systemPage } from './pages-system.js';
import { cancelRestartPage, createTransferPage, exportPage, listingPage } from './pages-transfers.js';
import type { Session, SessionStore } from './sessions.js';
import { spooledPage } from '../spooled.js';

export interface AdminAppContext extends AdminContext {
  sessions: SessionStore;
  /**
   * Failed logins: the REST side's lockout service (http/auth-guard.ts), with the same settings
   * (`restmaxauthfailures`, `restlockout`): the user and the source address are locked out apart.
   */
  guard: AuthGuard;
  live: LiveBroadcaster;
}

interface PageDef {
  role: number;
  menu?: TextKey;
  render(r: PageRequest): Promise<PageAnswer>;
}

const spooled = (detail: boolean) => async (r: PageRequest): Promise<PageAnswer> => ({
  body: spooledPage(r.ctx.services.rest.fileMonitors.list(), r.t, { detail: detail || Number(r.params.DETAIL ?? 0) > 0, name: r.params.name, status: Number(r.params.status ?? 0) || 0, now: r.ctx.services.rest.now(), base: 'Spooled.html' }),
});

const PAGES: Record<string, PageDef> = {
  index: { role: Role.NOACCESS, menu: 'start', render: startPage },
  Listing: { role: Role.NOACCESS, menu: 'listing', render: listingPage },
  ListingReload: { role: Role.NOACCESS, render: listingPage },
  CancelRestart: { role: Role.TRANSFER, menu: 'cancelRestart', render: cancelRestartPage },
  CreateTransfer: { role: Role.TRANSFER, menu: 'create', render: createTransferPage },
  Export: { role: Role.SYSTEM, menu: 'export', render: exportPage },
  Spooled: { role: Role.NOACCESS, menu: 'spooled', render: spooled(false) },
  SpooledDetailed: { role: Role.NOACCESS, render: spooled(true) },
  Hosts: { role: Role.HOST, menu: 'hosts', render: hostsPage },
  Rules: { role: Role.RULE, menu: 'rules', render: rulesPage },
  // Without SYSTEM the page itself shows the limited variant (language only).
  System: { role: Role.NOACCESS, menu: 'system', render: systemPage },
};

function sessionCookie(ctx: AdminAppContext, value: string, maxAge?: number): string {
  return `${ctx.sessions.cookieName}=${value}; Path=/; HttpOnly; Secure; SameSite=Strict${maxAge !== undefined ? `; Max-Age=${maxAge}` : ''}`;
}

function frame(ctx: AdminAppContext, lang: Lang, path: string, session: Session | undefined, extra: Partial<Frame> = {}): Frame {
  const t = translator(lang);
  const { rest } = ctx.services;
  const f = headerFacts(rest.counters, rest.config.limits.runLimit);
  const facts: Frame['facts'] = [
    ['Local', f.local, 'local'], ['Network', f.connections, 'connections'], ['Host', rest.config.hostId],
  ];
  if (session) facts.push(['Authent', session.user], ['', f.bandwidthMB, 'bandwidthMB'], [t('date'), formatIsoLocal(rest.now())]);
  const nav: Frame['nav'] = session === undefined ? [] : [
    ...Object.entries(PAGES).filter(([, d]) => d.menu !== undefined && hasRole(session.role, d.role)).map(([name, d]): [string, string, boolean] => [t(d.menu!), `/${name}.html`, path === `/${name}.html`]),
    [t('logout'), '/Logout.html', false],
  ];
  return { lang, t, path, title: `svc-r66 ${t('administration')}: ${rest.config.hostId}`, facts, nav, ...extra };
}

function logonPage(ctx: AdminAppContext, lang: Lang, message?: Html): string {
  const t = translator(lang);
  const body = html`<h2>${t('login')}</h2>${message ?? ''}<form class="panel" method="post" action="/Logon.html">
${field(t('user'), 'name', undefined, 'text', 'required autocomplete="username" autofocus')}${field(t('password'), 'passwd', undefined, 'password', 'required autocomplete="current-password"')}
<div class="actions"><button type="submit" name="Logon" value="Logon">${t('login')}</button></div></form>`;
  return page(frame(ctx, lang, '/Logon.html', undefined), body);
}

async function login(ctx: AdminAppContext, req: FastifyRequest, reply: FastifyReply, params: Params, lang: Lang): Promise<FastifyReply> {
  const t = translator(lang);
  // Login CSRF: a page elsewhere must not log the browser in under the attacker's account (issue 32).
  if (foreignOrigin(req, true)) {
    ctx.services.rest.log.warn({ origin: req.headers.origin ?? req.headers.referer, ip: req.ip }, 'web administration: logon from another site refused');
    return sendHtml(reply, logonPage(ctx, lang, notice(t('forged'), false)), 403);
  }
  const name = params.name?.trim() ?? '';
  const password = params.passwd ?? '';
  if (name === '' || password === '') return sendHtml(reply, logonPage(ctx, lang, notice(t('emptyLogin'), false)), 401);
  const { guard } = ctx;
  if (guard.isLocked(req.ip, name)) return sendHtml(reply, logonPage(ctx, lang, notice(t('lockedOut'), false)), 429);
  const ok = await checkLogin(ctx.services.rest.config, ctx.services.rest.store, name, password);
  if (ok === undefined) {
    guard.failed(req.ip, name, 'bad login');
    return sendHtml(reply, logonPage(ctx, lang, notice(t('badLogin'), false)), 401);
  }
  guard.succeeded(req.ip, ok.user);
  const old = cookie(req, ctx.sessions.cookieName);
  if (old !== undefined) ctx.sessions.destroy(old);
  const session = ctx.sessions.create(ok.user, ok.role);
  ctx.services.rest.log.info({ user: ok.user, roles: formatRoleSet(ok.role) }, 'web administration: login');
  return reply.code(303).header('set-cookie', sessionCookie(ctx, session.id)).header('location', '/index.html').send();
}

/**
 * Whether a browser says the request comes from another site: an Origin other than this listener's,
 * or (no Origin) a Referer from elsewhere. `null` (sandboxed frames, cross-site redirects) counts as
 * foreign where no other token protects the form (`nullIsForeign`: the logon). Clients that send
 * neither header are not browsers and cannot be made to forge a request.
 */
function foreignOrigin(req: FastifyRequest, nullIsForeign: boolean): boolean {
  const own = `https://${req.headers.host ?? ''}`;
  const origin = req.headers.origin;
  if (origin !== undefined) return origin === 'null' ? nullIsForeign : req.headers.host === undefined || origin !== own;
  const referer = req.headers.referer;
  if (referer === undefined) return false;
  try {
    return new URL(referer).origin !== own;
  } catch {
    return true;
  }
}

/** A POST is accepted only with the session's token, and from this origin when the browser says where from. */
function forged(req: FastifyRequest, session: Session, params: Params): boolean {
  if (foreignOrigin(req, false)) return true;
  const token = params.csrf ?? '';
  return !safeEqual(token, session.csrf);
}

async function download(ctx: AdminAppContext, reply: FastifyReply, name: string, session: Session): Promise<FastifyReply> {
  // A plain file name directly in the archive directory: no separator, no dot-dot.
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) return reply.code(404).send();
  const file = join(ctx.services.rest.config.directories.arch, name);
  const info = await stat(file).catch(() => undefined);
  if (info === undefined || !info.isFile()) return reply.code(404).send();
  reply.type('application/xml').header('content-disposition', `attachment; filename="${name}"`).header('cache-control', 'no-store');
  // A rules export written in clear for another caller: without RULE its task credentials are masked (decision 0038).
  if (/rules?\.xml$/i.test(name) && !hasRole(session.role, Role.RULE)) return reply.send(maskRuleFileText(await readFile(file, 'utf8')));
  return reply.send(createReadStream(file));
}

async function handle(ctx: AdminAppContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const path = (req.raw.url ?? '/').split('?')[0]!;
  const { params, voided } = readParams(req);
  const langParam = params.setLng ?? (params.ACTION === 'Language' ? params.change : undefined);
  const lang = pickLang(langParam, cookie(req, 'i18next'), ctx.services.serverLang.value);
  const langCookie: Record<string, string> = langParam !== undefined ? { 'set-cookie': `i18next=${lang}; Path=/; Secure; SameSite=Lax` } : {};
  const t = translator(lang);
  if (voided) return sendHtml(reply, page(frame(ctx, lang, path, undefined), notice(t('badRequest'), false)), 400);
  const isPost = req.method === 'POST';
  if (isPost && (path === '/Logon.html' || params.Logon !== undefined)) return login(ctx, req, reply, params, lang);
  const session = ctx.sessions.get(cookie(req, ctx.sessions.cookieName));
  if (session === undefined) {
    if (path === '/events') return reply.code(401).send();
    return sendHtml(reply, logonPage(ctx, lang), isPost ? 401 : 200, langCookie);
  }
  if (path === '/events') {
    reply.hijack();
    ctx.live.serve(reply.raw, { address: req.ip, session: session.id });
    return reply;
  }
  if (path.startsWith('/arch/')) {
    if (!hasRole(session.role, Role.SYSTEM)) return reply.code(403).send();
    return download(ctx, reply, decodeURIComponent(path.slice('/arch/'.length)), session);
  }
  if (isPost && forged(req, session, params)) {
    ctx.services.rest.log.warn({ user: session.user, path }, 'web administration: form refused (missing or wrong CSRF token, or foreign origin)');
    return sendHtml(reply, page(frame(ctx, lang, path, session), notice(t('forged'), false)), 403);
  }
  if (path === '/Logout.html') {
    ctx.sessions.destroy(session.id);
    return reply.code(303).header('set-cookie', sessionCookie(ctx, '', 0)).header('location', '/Logon.html').send();
  }
  const name = path.replace(/^\/+/, '').split('.')[0] ?? '';
  const pageName = PAGES[name] !== undefined ? name : 'index';
  const def = PAGES[pageName]!;
  const current = `/${pageName}.html`;
  if (!hasRole(session.role, def.role)) {
    return sendHtml(reply, page(frame(ctx, lang, current, session), html`<h2>${t('notAllowed')}</h2>${notice(t('notAllowed'), false)}`), 403, langCookie);
  }
  const request: PageRequest = {
    ctx, params, posted: isPost, session, lang, t,
    form: (content, opts = {}) => csrfForm(session, opts.action ?? current, content, opts),
  };
  const answer = await def.render(request);
  const headers: Record<string, string> = { ...langCookie };
  if (answer.logout) {
    ctx.sessions.destroy(session.id);
    headers['set-cookie'] = sessionCookie(ctx, '', 0);
  }
  const extra: Partial<Frame> = {};
  // Live rows come from the engine and from the database (any writer); a later page (`before`) gets no new rows.
  if (answer.live) Object.assign(extra, { live: '/events', liveMatch: params.before === undefined ? '*' : '', liveOwner: ctx.services.rest.config.hostId });
  if (answer.refresh) extra.refresh = answer.refresh;
  return sendHtml(reply, page(frame(ctx, lang, current, answer.logout ? undefined : session, extra), answer.body), 200, headers);
}

export async function createAdminApp(ctx: AdminAppContext, tls: TlsOptions): Promise<FastifyInstance> {
  const app = createWebApp(ctx.services.rest.log, tls, { compress: ctx.services.rest.config.server.useHttpCompression, limits: { name: 'web-admin', config: ctx.services.rest.config } });
  app.route({ method: ['GET', 'POST'], url: '/*', handler: (req, reply) => handle(ctx, req, reply) });
  app.route({ method: ['PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: '/*', handler: (_req, reply) => reply.code(405).send() });
  return app;
}
