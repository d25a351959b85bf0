/**
 * The one browser script of both areas (served as /res/app.js, an ES module): live rows from the
 * server-sent events stream named by `<body data-live>`. Each event is a snapshot of the transfers
 * that changed (engine events and database rows); rows carry `data-key`, `data-owner`, `data-info`
 * and cells `data-col`. Cells are overwritten in place; when a shown row changes section (its
 * UPDATEDINFO, or on the active view its step status) or a row this page lists appears
 * (`data-live-match`), the `[data-live-tables]` boxes are fetched again (their `data-src`, else this
 * URL) and replaced, at most once a second; a page with a `data-live-every` box (the home's
 * pictures) is refreshed that way every so many seconds. `facts` events update the header (`data-fact`).
 * Nothing accumulates in the page, and the stream reconnects by itself: the browser does after a
 * network error, the script after a refusal (backing off from 1 s to 30 s), and the tables are
 * fetched again after any gap.
 */
export const CLIENT_JS = `const live = document.body.dataset.live;
const match = (document.body.dataset.liveMatch || '').split(',').filter(Boolean);
const owner = document.body.dataset.liveOwner || '';
const fmtRate = (b) => b >= 1048576 ? (b / 1048576).toFixed(1) + ' MB/s' : b >= 1024 ? (b / 1024).toFixed(1) + ' KB/s' : b + ' B/s';
let reloading = false, again = false, lastReload = 0;
// The last rate of each running transfer: a fetched table has no rate (the server renders rows
// from the database), so a reload puts them back. Ended transfers leave; at most 1000 are kept.
const rates = new Map();
function restoreRates() {
  for (const [key, rate] of rates) {
    for (const c of document.querySelectorAll('tr[data-key="' + CSS.escape(key) + '"] [data-col="rate"]')) if (c.textContent === '') c.textContent = fmtRate(rate);
  }
}
async function reload() {
  if (reloading) { again = true; return; }
  reloading = true;
  try {
    const wait = 1000 - (Date.now() - lastReload);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lastReload = Date.now();
    const boxes = [...document.querySelectorAll('[data-live-tables]')];
    if (boxes.length === 0) return;
    // A fetch that never ends (a connection the network dropped silently) would hold 'reloading' for
    // ever, and the page would take no change again: it is given up after 10 s, the next change retries.
    const res = await fetch(boxes[0].dataset.src || location.href, { credentials: 'same-origin', signal: AbortSignal.timeout(10000) });
    if (!res.ok) return;
    const fresh = new DOMParser().parseFromString(await res.text(), 'text/html').querySelectorAll('[data-live-tables]');
    boxes.forEach((b, i) => { if (fresh[i]) b.replaceChildren(...fresh[i].childNodes); });
    restoreRates();
  } catch { /* the next change tries again */ } finally {
    reloading = false;
    if (again) { again = false; void reload(); }
  }
}
function apply(t) {
  let shown = false, moved = false;
  for (const row of document.querySelectorAll('tr[data-key="' + CSS.escape(t.key) + '"]')) {
    if (t.owner && row.dataset.owner && row.dataset.owner !== t.owner) continue;
    shown = true;
    const set = (col, text) => { const c = row.querySelector('[data-col="' + col + '"]'); if (c && text !== undefined && c.textContent !== text) c.textContent = text; };
    set('rank', String(t.rank));
    set('step', t.step);
    set('status', t.status);
    set('statusName', t.statusName);
    set('info', t.info);
    set('stop', t.stop);
    set('rate', t.end ? '' : fmtRate(t.rate));
    set('running', t.end ? '' : '\\u25cf');
    const p = row.querySelector('progress[data-col="progress"]');
    const max = t.size > 0 ? t.size : Number(p?.getAttribute('max') || 0);
    if (p && max > 0) { p.max = max; p.value = t.info === 'DONE' ? max : Math.min(t.bytes, max); }
    row.dataset.state = t.end ? 'ended' : 'running';
    const box = row.closest('[data-live-tables]');
    if (t.info && row.dataset.info !== t.info) { moved ||= box !== null; row.dataset.info = t.info; }
    if (t.status && box?.hasAttribute('data-live-steps') && row.dataset.status !== t.status) { moved = true; row.dataset.status = t.status; }
  }
  const mine = !owner || !t.owner || t.owner === owner;
  return moved || (!shown && t.info !== undefined && mine && (match.includes('*') || match.includes(t.info)));
}
if (live && 'EventSource' in window) {
  const status = document.createElement('p');
  status.className = 'live';
  status.setAttribute('aria-live', 'polite');
  status.innerHTML = '<span class="live-dot"></span><span></span>';
  document.querySelector('main')?.prepend(status);
  const label = status.lastChild;
  const onTransfers = (e) => {
    let stale = false;
    for (const t of JSON.parse(e.data)) {
      if (t.end) rates.delete(t.key);
      else { rates.delete(t.key); rates.set(t.key, t.rate); if (rates.size > 1000) rates.delete(rates.keys().next().value); }
      stale = apply(t) || stale;
    }
    if (stale) void reload();
  };
  const onFacts = (e) => {
    const f = JSON.parse(e.data);
    for (const dd of document.querySelectorAll('[data-fact]')) { const v = f[dd.dataset.fact]; if (typeof v === 'string' && dd.textContent !== v) dd.textContent = v; }
  };
  let delay = 1000, gap = false;
  const connect = () => {
    const source = new EventSource(live);
    source.addEventListener('open', () => {
      status.classList.add('live-on'); label.textContent = document.documentElement.lang === 'fr' ? 'En direct' : 'Live';
      delay = 1000;
      // Back after a gap: what changed meanwhile was not sent to this page; its tables are fetched again.
      if (gap) { gap = false; void reload(); }
    });
    source.addEventListener('error', () => {
      status.classList.remove('live-on'); label.textContent = ''; gap = true;
      // A refusal (429/503: every stream slot taken, e.g. the previous page's not closed yet) or another
      // HTTP error ends an EventSource for good: connect again, waiting longer each time (30 s at most).
      if (source.readyState === EventSource.CLOSED) { setTimeout(connect, delay); delay = Math.min(delay * 2, 30000); }
    });
    source.addEventListener('transfers', onTransfers);
    source.addEventListener('facts', onFacts);
  };
  connect();
}
const every = Number(document.querySelector('[data-live-every]')?.dataset.liveEvery || 0);
if (every > 0) setInterval(() => { if (!document.hidden) void reload(); }, every * 1000);
for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (e) => { if (!confirm(form.dataset.confirm)) e.preventDefault(); });
}
`;
