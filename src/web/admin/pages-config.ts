/**
 * Hosts and Rules pages of the administration area (web-ui.md §2.4, §2.5): the partner and rule
 * tables through the same store as REST v2, a connection test through the R66 client, and rules
 * with their six task lists as `<tasks>` XML. Partner passwords are never shown back.
 */
import { decodeHostIds, decodeTasks, encodeTasks, encryptPasswordHex, TASK_TYPES } from '../../config/index.js';
import type { Host } from '../../model/host.js';
import { TransferMode, type Rule } from '../../model/rule.js';
import { restoreMaskedSecrets } from '../../model/rule-secrets.js';
import { field, html, Html, notice, select, table } from '../html.js';
import { flag, intParam, text } from '../params.js';
import type { PageAnswer, PageRequest } from './context.js';

const yes = (b: boolean): Html => html`${b ? '✔' : ''}`;

export async function hostsPage(r: PageRequest): Promise<PageAnswer> {
  const { t, params, ctx } = r;
  const { rest } = ctx.services;
  const store = rest.store;
  const results: Html[] = [];
  const id = text(params, 'host');
  const action = r.posted ? params.ACTION : undefined;
  if (action === 'Create' || action === 'Update') {
    const address = text(params, 'address');
    const key = params.hostkey ?? '';
    const portGiven = text(params, 'port') !== undefined;
    const port = intParam(params, 'port', -1);
    const client = flag(params, 'isclient') || !portGiven;
    const missing = [['host', id], ['address', address ?? (client ? '0.0.0.0' : undefined)], ['hostkey', key === '' ? undefined : key]].filter(([, v]) => v === undefined).map(([k]) => k);
    if (action === 'Update' && !portGiven) missing.push('port');
    if (missing.length > 0) results.push(notice(`${missing.join(', ')} ${t('required')}`, false));
    else if (port > 65535 || (portGiven && !/^-?\d+$/.test(params.port!.trim()))) results.push(notice(`port: '${params.port}' is not a port`, false));
    else {
      const host: Host = {
        hostId: id!, address: address ?? '0.0.0.0', port: portGiven ? port : -1, isSsl: flag(params, 'ssl'),
        hostKey: Buffer.from(encryptPasswordHex(rest.config.identity.cryptoKey, key), 'ascii'), adminRole: flag(params, 'admin'), isClient: client,
        isActive: flag(params, 'isactive'), isProxified: flag(params, 'isproxified'), updatedInfo: 0,
      };
      try {
        if (action === 'Create') await store.hosts.insert(host);
        else await store.hosts.upsert(host);
        results.push(notice(`${action} ${host.hostId}: ${t('done_')}`, true));
      } catch (err) {
        results.push(notice(`${action} ${host.hostId}: ${err instanceof Error ? err.message : 'failed'}`, false));
      }
    }
  } else if (action === 'Delete' && id !== undefined) {
    results.push(notice(`${t('delete')} ${id}: ${(await store.hosts.delete(id)) ? t('done_') : t('notFound')}`, true));
  } else if (action === 'TestConn' && id !== undefined) {
    const test = ctx.services.testConnection;
    if (test === undefined) results.push(notice(`${t('testConn')} ${id}: this server has no R66 network`, false));
    else {
      try {
        results.push(notice(`${t('testConn')} ${id}: ${await test(id)}`, true));
      } catch (err) {
        results.push(notice(`${t('testConn')} ${id}: ${t('failed')}: ${err instanceof Error ? err.message : String(err)}`, false));
      }
    }
  } else if (action === 'CloseConn' && id !== undefined) {
    const close = ctx.services.closeConnections;
    if (close === undefined) results.push(notice(`${t('closeConn')} ${id}: this server has no R66 network`, false));
    else {
      try {
        const n = await close(id);
        rest.log.info({ partner: id }, `web administration: ${n} R66 connection(s) with the partner closed`);
        results.push(notice(`${t('closeConn')} ${id}: ${n} ${t('connectionsClosed')}`, true));
      } catch (err) {
        results.push(notice(`${t('closeConn')} ${id}: ${t('failed')}: ${err instanceof Error ? err.message : String(err)}`, false));
      }
    }
  }
  const filter: { address?: string; isSsl?: boolean; isActive?: boolean } = {};
  if (!r.posted) {
    const address = text(params, 'address');
    if (address !== undefined) filter.address = address;
    if (flag(params, 'ssl')) filter.isSsl = true;
    if (flag(params, 'active')) filter.isActive = true;
  }
  let hosts = await store.hosts.list(filter);
  if (!r.posted && id !== undefined) hosts = hosts.filter((h) => h.hostId.includes(id));
  const edit = r.posted ? undefined : hosts.find((h) => h.hostId === id);
  const rows = hosts.map((h) => [
    html`${h.hostId}`, html`${h.address}`, html`${h.port}`, yes(h.isSsl), html`${h.hostKey ? '••••' : ''}`, yes(h.adminRole), yes(h.isClient), yes(h.isActive), yes(h.isProxified),
    html`<a href="Hosts.html?host=${encodeURIComponent(h.hostId)}">${t('update')}</a> ${(['TestConn', 'CloseConn', 'Delete'] as const).map((a) => r.form(
      html`<input type="hidden" name="host" value="${h.hostId}"><button type="submit" class="${a === 'Delete' ? 'danger' : 'minor'}" name="ACTION" value="${a}" aria-label="${a} ${h.hostId}">${t(a === 'TestConn' ? 'testConn' : a === 'CloseConn' ? 'closeConn' : 'delete')}</button>`,
      { className: 'inline', action: 'Hosts.html', ...(a === 'Delete' ? { confirm: `${t('delete')} ${h.hostId}?` } : {}) }))}`,
  ]);
  const filterForm = html`<form class="panel" method="get" action="Hosts.html" role="search">${field(t('host'), 'host', r.posted ? undefined : id)}${field(t('address'), 'address', r.posted ? undefined : params.address)}
${field(t('ssl'), 'ssl', undefined, 'checkbox')}${field(t('isActive'), 'active', undefined, 'checkbox')}<div class="actions"><button type="submit" name="ACTION" value="Filter">${t('filter')}</button></div></form>`;
  const editForm = r.form(html`${field(t('host'), 'host', edit?.hostId, 'text', 'required')}${field(t('address'), 'address', edit?.address)}${field(t('port'), 'port', edit ? String(edit.port) : undefined, 'number', 'min="-1" max="65535"')}
${field(t('key'), 'hostkey', undefined, 'password', 'required autocomplete="new-password"')}${field(t('ssl'), 'ssl', edit?.isSsl ? 'on' : undefined, 'checkbox')}${field(t('admin'), 'admin', edit?.adminRole ? 'on' : undefined, 'checkbox')}
${field(t('isClient'), 'isclient', edit?.isClient ? 'on' : undefined, 'checkbox')}${field(t('isActive'), 'isactive', edit === undefined || edit.isActive ? 'on' : undefined, 'checkbox')}${field(t('proxified'), 'isproxified', edit?.isProxified ? 'on' : undefined, 'checkbox')}
<div class="actions"><button type="submit" name="ACTION" value="Create">${t('add')}</button><button type="submit" name="ACTION" value="Update">${t('update')}</button></div>`, { action: 'Hosts.html' });
  return {
    body: html`<h2>${t('hosts')}</h2>${results}${filterForm}${table(t('hosts'), ['HOSTID', 'ADDRESS', 'PORT', 'ISSSL', 'HOSTKEY', 'ADMINROLE', 'ISCLIENT', 'ISACTIVE', 'ISPROXIFIED', t('actions')], rows)}<h3>${t('add')} / ${t('update')}</h3>${editForm}`,
  };
}

const MODES: Array<[string, TransferMode]> = [['send', 1], ['recv', 2], ['sendmd5', 3], ['recvmd5', 4], ['sendth', 5], ['recvth', 6], ['sendthmd5', 7], ['recvthmd5', 8]];
const TASK_FIELDS = [['rpre', 'rPreTasks'], ['rpost', 'rPostTasks'], ['rerr', 'rErrorTasks'], ['spre', 'sPreTasks'], ['spost', 'sPostTasks'], ['serr', 'sErrorTasks']] as const;

/** `hostids`: an XML `<hostids>` list or host ids separated by spaces or commas. */
function hostIdsOf(value: string): string[] {
  return value.trim().startsWith('<') ? decodeHostIds(value) : value.split(/[\s,]+/).filter((s) => s !== '');
}

export async function rulesPage(r: PageRequest): Promise<PageAnswer> {
  const { t, params, ctx } = r;
  const { rest } = ctx.services;
  const store = rest.store;
  const results: Html[] = [];
  const id = text(params, 'rule');
  const action = r.posted ? params.ACTION : undefined;
  if (action === 'Create' || action === 'Update') {
    const mode = MODES.find(([n]) => n === params.mode)?.[1];
    if (id === undefined || mode === undefined) results.push(notice(`rule, mode ${t('required')}`, false));
    else {
      try {
        const rule: Rule = {
          idRule: id, hostIds: hostIdsOf(params.hostids ?? ''), mode, recvPath: params.recvp ?? '', sendPath: params.sendp ?? '', archivePath: params.archp ?? '', workPath: params.workp ?? '',
          ...Object.fromEntries(TASK_FIELDS.map(([f, k]) => [k, decodeTasks(params[f] ?? '')])),
        } as Rule;
        // An unknown task type, or one this server cannot run, refuses the rule, as REST v2 does.
        for (const [, k] of TASK_FIELDS) {
          const unknown = rule[k].find((x) => !TASK_TYPES.has(x.type) && rest.tasks?.get(x.type) === undefined);
          if (unknown !== undefined) throw new Error(`${k}: unknown task type ${unknown.type}`);
        }
        // Masked credentials (pasted from an export or REST answer of a caller without RULE) keep the stored values, or the form is refused.
        const kept = restoreMaskedSecrets(rule, action === 'Create' ? undefined : await store.rules.get(id));
        if (action === 'Create') await store.rules.insert(kept);
        else await store.rules.upsert(kept);
        results.push(notice(`${action} ${id}: ${t('done_')}`, true));
      } catch (err) {
        results.push(notice(`${action} ${id}: ${err instanceof Error ? err.message : 'failed'}`, false));
      }
    }
  } else if (action === 'Delete' && id !== undefined) {
    try {
      results.push(notice(`${t('delete')} ${id}: ${(await store.rules.delete(id)) ? t('done_') : t('notFound')}`, true));
    } catch (err) {
      results.push(notice(`${t('delete')} ${id}: ${err instanceof Error ? err.message : 'failed'}`, false));
    }
  }
  const group = params.mode ?? 'all';
  let rules = await store.rules.list();
  if (!r.posted) {
    if (id !== undefined) rules = rules.filter((x) => x.idRule.includes(id));
    const wanted = MODES.filter(([n]) => group === 'all' || n === group || (group.endsWith('th') ? n.startsWith(group) : n === group)).map(([, m]) => m);
    if (group !== 'all') rules = rules.filter((x) => wanted.includes(x.mode));
  }
  const edit = r.posted ? undefined : rules.find((x) => x.idRule === id);
  const tasksText = (list: Rule['rPreTasks']): Html => html`<span class="wrap">${list.map((x) => `${x.type} ${x.path}`).join(' · ')}</span>`;
  const rows = rules.map((x) => [
    html`${x.idRule}`, html`${MODES.find(([, m]) => m === x.mode)?.[0] ?? x.mode}`, html`${x.hostIds.join(' ')}`, html`${x.recvPath}`, html`${x.sendPath}`,
    ...TASK_FIELDS.map(([, k]) => tasksText(x[k])),
    html`<a href="Rules.html?rule=${encodeURIComponent(x.idRule)}">${t('update')}</a> ${r.form(html`<input type="hidden" name="rule" value="${x.idRule}"><button type="submit" class="danger" name="ACTION" value="Delete" aria-label="${t('delete')} ${x.idRule}">${t('delete')}</button>`, { className: 'inline', action: 'Rules.html', confirm: `${t('delete')} ${x.idRule}?` })}`,
  ]);
  const modeOptions: Array<[string, string]> = MODES.map(([n]) => [n, n]);
  const filterForm = html`<form class="panel" method="get" action="Rules.html" role="search">${field(t('rule'), 'rule', r.posted ? undefined : id)}${select(t('mode'), 'mode', [['all', t('all')], ...modeOptions], group)}
<div class="actions"><button type="submit" name="ACTION" value="Filter">${t('filter')}</button></div></form>`;
  const editForm = r.form(html`${field(t('rule'), 'rule', edit?.idRule, 'text', 'required')}${select(t('mode'), 'mode', modeOptions, MODES.find(([, m]) => m === edit?.mode)?.[0])}
${field(t('hostIds'), 'hostids', edit?.hostIds.join(' '))}${field(t('recvPath'), 'recvp', edit?.recvPath)}${field(t('sendPath'), 'sendp', edit?.sendPath)}${field(t('archPath'), 'archp', edit?.archivePath)}${field(t('workPath'), 'workp', edit?.workPath)}
${TASK_FIELDS.map(([f, k]) => field(`${k} ${t('tasks')}`, f, edit && edit[k].length > 0 ? encodeTasks(edit[k]) : undefined, 'textarea'))}
<div class="actions"><button type="submit" name="ACTION" value="Create">${t('add')}</button><button type="submit" name="ACTION" value="Update">${t('update')}</button></div>`, { action: 'Rules.html' });
  return {
    body: html`<h2>${t('rules')}</h2>${results}${filterForm}${table(t('rules'), ['IDRULE', 'MODE', 'HOSTIDS', 'RECVPATH', 'SENDPATH', ...TASK_FIELDS.map(([, k]) => k), t('actions')], rows)}<h3>${t('add')} / ${t('update')}</h3>${editForm}`,
  };
}
