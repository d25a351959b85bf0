/**
 * The one browser script of both areas (served as /res/app.js, an ES module): live rows from the
 * server-sent events stream named by `<body data-live>`. Each event is a snapshot of the running
 * transfers that changed; rows carry `data-key` and cells `data-col`. Nothing accumulates in the
 * page: cells are overwritten, a finished transfer is marked, and the stream reconnects by itself.
 */
export const CLIENT_JS = `const live = document.body.dataset.live;
const fmtRate = (b) => b >= 1048576 ? (b / 1048576).toFixed(1) + ' MB/s' : b >= 1024 ? (b / 1024).toFixed(1) + ' KB/s' : b + ' B/s';
function apply(t) {
  const row = document.querySelector('tr[data-key="' + CSS.escape(t.key) + '"]');
  if (!row) return;
  const set = (col, text) => { const c = row.querySelector('[data-col="' + col + '"]'); if (c && c.textContent !== text) c.textContent = text; };
  set('rank', String(t.rank));
  set('step', t.step);
  set('status', t.status);
  set('rate', t.end ? '' : fmtRate(t.rate));
  set('running', t.end ? '' : '\\u25cf');
  const p = row.querySelector('progress[data-col="progress"]');
  if (p) { if (t.size > 0) { p.max = t.size; p.value = Math.min(t.bytes, t.size); } else p.removeAttribute('value'); }
  row.dataset.state = t.end ? 'ended' : 'running';
}
if (live && 'EventSource' in window) {
  const status = document.createElement('p');
  status.className = 'live';
  status.setAttribute('aria-live', 'polite');
  status.innerHTML = '<span class="live-dot"></span><span></span>';
  document.querySelector('main')?.prepend(status);
  const label = status.lastChild;
  const source = new EventSource(live);
  source.addEventListener('open', () => { status.classList.add('live-on'); label.textContent = document.documentElement.lang === 'fr' ? 'En direct' : 'Live'; });
  source.addEventListener('error', () => { status.classList.remove('live-on'); label.textContent = ''; });
  source.addEventListener('transfers', (e) => { for (const t of JSON.parse(e.data)) apply(t); });
}
for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (e) => { if (!confirm(form.dataset.confirm)) e.preventDefault(); });
}
`;
