/**
 * HTML building blocks of both areas: escaping (every value goes through `esc`), the page frame
 * (skip link, header, language switch, main landmark), tables with captions, and form fields with
 * labels. Output is plain server-rendered HTML; the one script only adds live updates.
 */
import { LANGS, type Lang, type Translate } from './i18n.js';

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A trusted HTML fragment (already escaped). */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** Tagged template: interpolated values are escaped unless they are Html (or arrays of Html). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

function render(v: unknown): string {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === undefined || v === null || v === false) return '';
  return esc(v);
}

export interface Frame {
  lang: Lang;
  t: Translate;
  title: string;
  /** Path of the current page (language links keep it). */
  path: string;
  /** Header cells (label, value, and the live `facts` field that updates the value). */
  facts: Array<[string, string, string?]>;
  /** Navigation links (label, href, current). */
  nav: Array<[string, string, boolean]>;
  /** Auto-refresh in seconds (0 = none). */
  refresh?: number;
  /** Server-sent events URL for live rows. */
  live?: string;
  /**
   * Live pages: the UPDATEDINFO names whose new rows belong on this page (`*` any), so the script
   * reloads the tables when such a row appears or a shown row changes section; and the one owner
   * the page lists (rows of other owners are not its news).
   */
  liveMatch?: string;
  liveOwner?: string;
}

export function page(frame: Frame, body: Html): string {
  const { t } = frame;
  const langs = LANGS.map((l) => html`<a href="${frame.path}?setLng=${l}" lang="${l}" ${l === frame.lang ? new Html('aria-current="true"') : ''}>${l.toUpperCase()}</a>`);
  const nav = frame.nav.map(([label, href, current]) => html`<li><a href="${href}" ${current ? new Html('aria-current="page"') : ''}>${label}</a></li>`);
  return '<!DOCTYPE html>\n' + html`<html lang="${frame.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${frame.refresh ? new Html(`<meta http-equiv="refresh" content="${Math.max(1, Math.floor(frame.refresh))}">`) : ''}<title>${frame.title}</title>
<link rel="stylesheet" href="/res/style.css"><script type="module" src="/res/app.js"></script></head>
<body${frame.live ? html` data-live="${frame.live}" data-live-match="${frame.liveMatch ?? ''}" data-live-owner="${frame.liveOwner ?? ''}"` : ''}><a class="skip" href="#main">${t('skip')}</a>
<header><h1>${frame.title}</h1><p class="langs" aria-label="${t('language')}">${langs}</p>
<dl class="facts">${frame.facts.map(([k, v, live]) => html`<div><dt>${k}</dt><dd${live !== undefined ? html` data-fact="${live}"` : ''}>${v}</dd></div>`)}</dl>
<nav aria-label="${t('menu')}"><ul>${nav}</ul></nav></header>
<main id="main" tabindex="-1">${body}</main></body></html>`.text;
}

/**
 * A table with a caption in its own scroller; `rows` are already-rendered cells; `rowAttrs` adds
 * data attributes per row; `pinLast` keeps the last column (the row actions) at the scroller's right
 * edge on wide screens, so the buttons stay in view however wide the table.
 */
export function table(caption: string, headers: string[], rows: Html[][], rowAttrs: Array<Html | undefined> = [], opts: { pinLast?: boolean } = {}): Html {
  return html`<div class="scroll"><table${opts.pinLast ? new Html(' class="pin-last"') : ''}><caption>${caption} <span class="count">(${rows.length})</span></caption>
<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((cells, i) => html`<tr ${rowAttrs[i] ?? ''}>${cells.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table></div>`;
}

let fieldSeq = 0;

/** A labelled input. */
export function field(label: string, name: string, value: string | undefined, type = 'text', extra = ''): Html {
  const id = `f${++fieldSeq}`;
  if (type === 'checkbox') {
    return html`<label class="check" for="${id}"><input type="checkbox" id="${id}" name="${name}" value="on" ${value ? new Html('checked') : ''} ${new Html(extra)}> ${label}</label>`;
  }
  // Label and control in one box, so the form grid keeps them together.
  if (type === 'textarea') return html`<div class="field"><label for="${id}">${label}</label><textarea id="${id}" name="${name}" rows="3" ${new Html(extra)}>${value ?? ''}</textarea></div>`;
  return html`<div class="field"><label for="${id}">${label}</label><input type="${type}" id="${id}" name="${name}" value="${value ?? ''}" ${new Html(extra)}></div>`;
}

/** A select with (value, label) options. */
export function select(label: string, name: string, options: Array<[string, string]>, selected: string | undefined): Html {
  const id = `f${++fieldSeq}`;
  return html`<div class="field"><label for="${id}">${label}</label><select id="${id}" name="${name}">${options.map(([v, l]) => html`<option value="${v}" ${v === selected ? new Html('selected') : ''}>${l}</option>`)}</select></div>`;
}

/** A result message with a role so screen readers announce it. */
export function notice(text: string, ok: boolean): Html {
  return html`<p class="${ok ? 'ok' : 'bad'}" role="status">${text}</p>`;
}
