/**
 * Transfer rows as both areas show them: the columns of a RUNNER row, the live cells (rank,
 * progress, rate, step, status, running marker) the page script updates in place, and the
 * `data-key` that ties a row to the live events.
 */
import type { TransferRecord } from '../model/transfer.js';
import { formatIsoLocal } from '../model/iso-date.js';
import { html, Html } from './html.js';
import { STEP_NAMES, transferKey } from './live.js';

const STATUS_NAMES = ['UNKNOWN', 'NOTUPDATED', 'INTERRUPTED', 'TOSUBMIT', 'INERROR', 'RUNNING', 'DONE'];

export const TRANSFER_HEADERS = ['S/R', 'SPECIALID', 'IDRULE', 'FILENAME', 'REQUESTER', 'REQUESTED', 'GLOBALSTEP', 'STEPSTATUS', 'UPDATEDINFO', 'RANK', 'Progress', 'Rate', 'STARTTRANS', 'STOPTRANS', 'Running'];

export function transferCells(r: TransferRecord, running: boolean): Html[] {
  return [
    html`${r.retrieveMode ? 'S' : 'R'}`, html`${r.specialId.toString()}`, html`${r.idRule}`, html`<span class="wrap">${r.filename}</span>`, html`${r.requester}`, html`${r.requested}`,
    html`<span data-col="step">${STEP_NAMES[r.globalStep]}</span>`, html`<span data-col="status">${r.stepStatus.char}</span> ${r.stepStatus.name}`,
    html`${STATUS_NAMES[r.updatedInfo]}`, html`<span data-col="rank">${r.rank}</span>`,
    html`<progress data-col="progress" aria-label="progress ${r.specialId.toString()}"></progress>`, html`<span data-col="rate"></span>`,
    html`${formatIsoLocal(r.start)}`, html`${formatIsoLocal(r.stop)}`, html`<span data-col="running" aria-label="${running ? 'active' : 'not active'}">${running ? '\u25cf' : ''}</span>`,
  ];
}

export function rowAttrs(r: TransferRecord): Html {
  return html`data-key="${transferKey(r)}"`;
}

export { STATUS_NAMES };
