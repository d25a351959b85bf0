import type { TransferRecord } from '../model/transfer.js';

/**
 * The runner XML of a REQUEST_CHECK answer (packets §15): one `runner` element on one line, no
 * declaration, children in column order, `updatedinfo` and `transferinfo` left out; times in the
 * answering host's local time zone, `yyyy-MM-dd HH:mm:ss.f` with trailing zeros of the fraction
 * removed (at least one digit).
 */
export function runnerXmlLine(r: TransferRecord): string {
  const fields: Array<[string, string]> = [
    ['specialid', r.specialId.toString()], ['globalstep', String(r.globalStep)], ['globallaststep', String(r.globalLastStep)],
    ['step', String(r.step)], ['rank', String(r.rank)], ['blocksz', String(r.blockSize)], ['modetrans', String(r.mode)],
    ['stepstatus', r.stepStatus.char], ['infostatus', r.infoStatus.char], ['retrievemode', String(r.retrieveMode)],
    ['ismoved', String(r.isMoved)], ['starttrans', runnerTime(r.start)], ['stoptrans', runnerTime(r.stop)],
    ['ownerreq', r.ownerReq], ['requester', r.requester], ['requested', r.requested], ['idrule', r.idRule],
    ['filename', r.filename], ['originalname', r.originalName], ['fileinfo', r.fileInfo],
  ];
  return `<runner>${fields.map(([k, v]) => `<${k}>${escapeText(v)}</${k}>`).join('')}</runner>`;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function runnerTime(d: Date): string {
  const fraction = pad(d.getMilliseconds(), 3).replace(/0+$/, '') || '0';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${fraction}`;
}

/** Standard XML text escaping. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
