/** What an administration page receives, and what it answers. */
import type { TransferOrders } from '../../operations/index.js';
import { html, type Html } from '../html.js';
import type { Lang, Translate } from '../i18n.js';
import type { Params } from '../params.js';
import type { WebServices } from '../services.js';
import type { Session } from './sessions.js';

export interface AdminContext {
  services: WebServices;
  orders: TransferOrders;
  /** Whether new requests are blocked (the System page's Block action keeps it). */
  blocked: { value: boolean };
}

export interface PageRequest {
  ctx: AdminContext;
  params: Params;
  /** POST: an action was asked (its CSRF token already checked). */
  posted: boolean;
  session: Session;
  lang: Lang;
  t: Translate;
  /** A POST form with the session's CSRF token. */
  form(content: Html, opts?: { className?: string; confirm?: string; action?: string }): Html;
}

export interface PageAnswer {
  body: Html;
  /** Live rows on this page. */
  live?: boolean;
  refresh?: number;
  /** Ends the session after the answer (logout). */
  logout?: boolean;
}

export function csrfForm(session: Session, action: string, content: Html, opts: { className?: string; confirm?: string } = {}): Html {
  return html`<form method="post" action="${action}" class="${opts.className ?? 'panel'}" ${opts.confirm ? html`data-confirm="${opts.confirm}"` : ''}><input type="hidden" name="csrf" value="${session.csrf}">${content}</form>`;
}
