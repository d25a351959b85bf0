/**
 * Start and System pages of the administration area (web-ui.md §2.2, §2.6): language, log level,
 * bandwidth and delays (memory only), this host's configuration row, configuration export with
 * download links, blocking of new requests, shutdown, restart and logout. Users without SYSTEM get
 * the limited page (language only).
 */
import { basename } from 'node:path';
import { formatRoleSet, hasRole, Role } from '../../config/index.js';
import { normaliseLimits } from '../../http/context.js';
import { UpdatedInfo } from '../../model/transfer.js';
import { exportConfigV1, type ConfigItem } from '../../admin/index.js';
import { notifyBandwidthOrder, notifyBlockOrder, notifyOrder } from '../../monitor/snmp/admin-order-warnings.js';
import { field, html, Html, notice, select } from '../html.js';
import { flag, intParam } from '../params.js';
import type { PageAnswer, PageRequest } from './context.js';

const LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

export async function startPage(r: PageRequest): Promise<PageAnswer> {
  const { t, session, ctx } = r;
  const c = ctx.services.rest.counters;
  const links: Array<[string, string]> = [[t('listing'), 'Listing.html'], [t('cancelRestart'), 'CancelRestart.html'], [t('create'), 'CreateTransfer.html'],
    [t('hosts'), 'Hosts.html'], [t('rules'), 'Rules.html'], [t('system'), 'System.html']];
  return {
    body: html`<h2>${t('welcome')}</h2><p>${t('loggedAs')} <strong>${session.user}</strong> — ${t('roleList')}: ${formatRoleSet(session.role)}</p>
<p>${t('localConnections')}: ${c.networkConnections()}</p><ul>${links.map(([l, href]) => html`<li><a href="${href}">${l}</a></li>`)}</ul>`,
  };
}

const LANGS: Array<[string, string]> = [['en', 'English'], ['fr', 'Français']];

/** `change`: this browser's language; `changesys` (SYSTEM only): the server's, see WebServices.serverLang. */
function languageForm(r: PageRequest, system: boolean): Html {
  const { t, lang } = r;
  const serverLang = r.ctx.services.serverLang.value ?? 'en';
  return r.form(html`${select(t('language'), 'change', LANGS, lang)}${system ? select(t('serverLanguage'), 'changesys', LANGS, serverLang) : ''}<div class="actions"><button type="submit" name="ACTION" value="Language">${t('apply')}</button></div>`, { action: 'System.html' });
}

export async function systemPage(r: PageRequest): Promise<PageAnswer> {
  const { t, params, ctx, session } = r;
  const { rest } = ctx.services;
  const { config, store } = rest;
  const limited = !hasRole(session.role, Role.SYSTEM);
  const results: Html[] = [];
  const action = r.posted ? params.ACTION : undefined;
  if (action === 'Disconnect') return { body: notice(t('logout'), true), logout: true };
  if (limited) {
    return { body: html`<h2>${t('system')}</h2>${languageForm(r, false)}<p><a href="Logout.html">${t('logout')}</a></p>` };
  }
  switch (action) {
    case 'Language': {
      const wanted = params.changesys;
      const server = ctx.services.serverLang;
      if (wanted !== undefined) {
        if (wanted !== 'en' && wanted !== 'fr') results.push(notice(`changesys: en or fr`, false));
        else if (wanted !== server.value) {
          server.value = wanted;
          rest.log.info({ lang: wanted, user: session.user }, 'web administration: server language changed (pages of viewers who chose none)');
          results.push(notice(`${t('serverLanguage')}: ${wanted}`, true));
        }
      }
      break;
    }
    case 'Level': {
      const level = params.loglevel?.toUpperCase();
      if (level === undefined || !(LEVELS as readonly string[]).includes(level)) results.push(notice(`loglevel: one of ${LEVELS.join(', ')}`, false));
      else {
        rest.log.level = level.toLowerCase();
        rest.log.warn({ level, user: session.user }, 'log level changed from the web administration');
        results.push(notice(`${t('logLevel')}: ${level}`, true));
      }
      break;
    }
    case 'Validate': {
      const cur = rest.bandwidth.get();
      const v = (name: string, dflt: number): number => intParam(params, name, dflt);
      rest.bandwidth.set(normaliseLimits({ readSession: v('BSESSR', cur.readSession), writeSession: v('BSESSW', cur.writeSession),
        readGlobal: v('BGLOBR', cur.readGlobal), writeGlobal: v('BGLOBW', cur.writeGlobal), delay: v('DTRA', cur.delay) }));
      notifyBandwidthOrder(rest.notify, rest.bandwidth.get(), session.user);
      // Memory only, as the original: the retry delay is read per retry; the scheduler period at its next start.
      config.limits.delayCommand = Math.max(1, v('DCOM', config.limits.delayCommand));
      config.limits.delayRetry = Math.max(0, v('DRET', config.limits.delayRetry));
      results.push(notice(`${t('bandwidth')}: ${t('done_')}`, true));
      break;
    }
    case 'HostConfig': {
      const old = await store.hostConfigs.get(config.hostId);
      await store.hostConfigs.upsert({ hostId: config.hostId, business: params.BUSINESS ?? old?.business ?? '', roles: params.ROLES ?? old?.roles ?? '',
        // UPDATEDINFO 3: applied by the running server at its next scheduler turn (database.md §9.2).
        aliases: params.ALIASES ?? old?.aliases ?? '', others: params.OTHER ?? old?.others ?? '', updatedInfo: UpdatedInfo.TOSUBMIT });
      results.push(notice(`${t('hostConfig')}: ${t('done_')}`, true));
      break;
    }
    case 'ExportConfig': {
      const items = new Set<ConfigItem>(['hosts', 'rules', 'business', 'aliases', 'roles']);
      // Without RULE the rules file shows task credentials masked (decision 0038).
      const files = await exportConfigV1({ store, hostId: config.hostId, cryptoKey: config.identity.cryptoKey, maskSecrets: !hasRole(session.role, Role.RULE) }, config.directories.arch, items);
      notifyOrder(rest.notify, 'export', session.user);
      const links = Object.entries(files).filter(([, f]) => typeof f === 'string').map(([item, f]) => html`<li>${item}: <a href="/arch/${encodeURIComponent(basename(f))}" download>${basename(f)}</a></li>`);
      results.push(links.length > 0 ? html`${notice(`${t('exportConfig')}: ${t('done_')}`, true)}<ul>${links}</ul>` : notice(t('nothingToExport'), false));
      break;
    }
    case 'Block': {
      const block = flag(params, 'blocking');
      rest.blockRequests(block);
      notifyBlockOrder(rest.notify, block, session.user);
      ctx.blocked.value = block;
      results.push(notice(t(block ? 'blocked' : 'unblocked'), true));
      break;
    }
    case 'Shutdown':
    case 'Restart':
      rest.shutdown(action === 'Restart');
      return { body: notice(t('shutdownStarted'), true), logout: true, ...(action === 'Restart' ? { refresh: Math.ceil((2 * config.limits.timeoutCon) / 1000) } : {}) };
    default:
      break;
  }
  const l = rest.bandwidth.get();
  // The engine's block state (also set by the R66 block order and REST), else this page's own.
  const blocked = rest.transfers?.requestsBlocked ?? ctx.blocked.value;
  const hc = await store.hostConfigs.get(config.hostId);
  const num = (label: string, name: string, value: number): Html => field(label, name, String(value), 'number', 'min="0"');
  return {
    body: html`<h2>${t('system')}</h2>${results}
<h3>${t('language')}</h3>${languageForm(r, true)}
<h3>${t('logLevel')}</h3>${r.form(html`${select(t('logLevel'), 'loglevel', LEVELS.map((x) => [x, x]), rest.log.level.toUpperCase())}<div class="actions"><button type="submit" name="ACTION" value="Level">${t('apply')}</button></div>`, { action: 'System.html' })}
<h3>${t('bandwidth')}</h3>${r.form(html`${num(`${t('sessionLimits')} R`, 'BSESSR', l.readSession)}${num(`${t('sessionLimits')} W`, 'BSESSW', l.writeSession)}
${num(`${t('globalLimits')} R`, 'BGLOBR', l.readGlobal)}${num(`${t('globalLimits')} W`, 'BGLOBW', l.writeGlobal)}${num(t('delayLimit'), 'DTRA', l.delay)}
${num(t('delayCommand'), 'DCOM', config.limits.delayCommand)}${num(t('delayRetry'), 'DRET', config.limits.delayRetry)}
<div class="actions"><button type="submit" name="ACTION" value="Validate">${t('apply')}</button></div>`, { action: 'System.html' })}
<h3>${t('hostConfig')}</h3>${r.form(html`${field(t('business'), 'BUSINESS', hc?.business, 'textarea')}${field(t('roles'), 'ROLES', hc?.roles, 'textarea')}
${field(t('aliases'), 'ALIASES', hc?.aliases, 'textarea')}${field(t('others'), 'OTHER', hc?.others, 'textarea')}<div class="actions"><button type="submit" name="ACTION" value="HostConfig">${t('apply')}</button></div>`, { action: 'System.html' })}
<h3>${t('exportConfig')}</h3>${r.form(html`<div class="actions"><button type="submit" name="ACTION" value="ExportConfig">${t('exportConfig')}</button></div>`, { action: 'System.html' })}
<h3>${t('block')}</h3>${r.form(html`${field(t('block'), 'blocking', blocked ? 'on' : undefined, 'checkbox')}<div class="actions"><button type="submit" name="ACTION" value="Block">${t('apply')}</button></div>`, { action: 'System.html' })}
<p>${t(blocked ? 'blocked' : 'unblocked')}</p>
<h3>${t('shutdown')}</h3>${r.form(html`<div class="actions"><button type="submit" class="danger" name="ACTION" value="Shutdown">${t('shutdown')}</button><button type="submit" class="danger" name="ACTION" value="Restart">${t('restartServer')}</button>
<button type="submit" class="minor" name="ACTION" value="Disconnect">${t('logout')}</button></div>`, { action: 'System.html', confirm: `${t('shutdown')}?` })}`,
  };
}

