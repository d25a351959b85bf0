/**
 * Transfer rows as both areas show them: the columns of a RUNNER row, the live cells (rank,
 * progress, rate, step, status, running marker) the page script updates in place, and the
 * `data-key` that ties a row to the live events.
 */
import { UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import { formatIsoLocal } from '../model/iso-date.js';
import { html, Html } from './html.js';
import { STEP_NAMES, transferKey } from './live.js';

const STATUS_NAMES = ['UNKNOWN', 'NOTUPDATED', 'INTERRUPTED', 'TOSUBMIT', 'INERROR', 'RUNNING', 'DONE'];

export const TRANSFER_HEADERS = ['S/R', 'SPECIALID', 'IDRULE', 'FILENAME', 'REQUESTER', 'REQUESTED', 'GLOBALSTEP', 'STEPSTATUS', 'UPDATEDINFO', 'RANK', 'Progress', 'Rate', 'STARTTRANS', 'STOPTRANS', 'Running'];

export function transferCells(r: TransferRecord, running: boolean): Html[] {
  return [
    html`${r.retrieveMode ? 'S' : 'R'}`, html`${r.specialId.toString()}`, html`${r.idRule}`, html`<span class="wrap">${r.filename}</span>`, html`${r.requester}`, html`${r.requested}`,
    html`<span data-col="step">${STEP_NAMES[r.globalStep]}</span>`, html`<span data-col="status">${r.stepStatus.char}</span> <span data-col="statusName">${r.stepStatus.name}</span>`,
    html`<span data-col="info">${STATUS_NAMES[r.updatedInfo]}</span>`, html`<span data-col="rank">${r.rank}</span>`,
    progress(r), html`<span data-col="rate"></span>`,
    html`${formatIsoLocal(r.start)}`, html`<span data-col="stop">${formatIsoLocal(r.stop)}</span>`, html`<span data-col="running" aria-label="${running ? 'active' : 'not active'}">${running ? '\u25cf' : ''}</span>`,
  ];
}

/** The progress bar from the stored rank and the size the transfer information gives (live events move it). */
function progress(r: TransferRecord): Html {
  const size = Number(/"ORIGINALSIZE":(\d+)/.exec(r.transferInfo)?.[1] ?? -1);
  const label = `progress ${r.specialId}`;
  if (!(size > 0)) return html`<progress data-col="progress" aria-label="${label}"></progress>`;
  const done = r.updatedInfo === UpdatedInfo.DONE ? size : Math.min(r.rank * r.blockSize, size);
  return html`<progress data-col="progress" aria-label="${label}" max="${size}" value="${done}"></progress>`;
}

/** The row's key, owner and UPDATEDINFO: the live script finds the row, and sees when it changes section. */
export function rowAttrs(r: TransferRecord): Html {
  return html`data-key="${transferKey(r)}" data-owner="${r.ownerReq}" data-info="${STATUS_NAMES[r.updatedInfo]}" data-status="${r.stepStatus.char}"`;
}

export { STATUS_NAMES };
