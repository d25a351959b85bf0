/**
 * Values of the substitution variables (tasks.md §6), computed once per task from the context.
 * A variable absent from the map is left as written in the argument: that is how the original
 * treats `#REMOTEHOST#` without authentication and directories it cannot resolve.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { nowOf, type TaskContext } from './context.js';

/** The three markers: removed from arguments, they only switch behaviour. */
export const MARKERS = ['NOWAIT', 'LOCALEXEC', 'COMPRESS'] as const;

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** `yyyyMMdd` and `HHmmss` of one instant, local time. */
export function dateAndHour(d: Date): { date: string; hour: string } {
  return {
    date: `${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}`,
    hour: `${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}`,
  };
}

/** Base name after the last `/` or `\` (the original name may come from another system). */
export function originalBaseName(name: string): string {
  const cut = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
  return cut >= 0 ? name.slice(cut + 1) : name;
}

function fileSize(path: string): string {
  try {
    const st = statSync(path);
    return st.isFile() ? String(st.size) : '0';
  } catch {
    return '0';
  }
}

/** Variable name (without `#`) -> value, for the context as it is now. */
export function variableValues(ctx: TaskContext): Map<string, string> {
  const v = new Map<string, string>();
  const file = ctx.currentFile;
  v.set('TRUEFULLPATH', file ?? 'nofile');
  v.set('TRUEFILENAME', file ? basename(file).replace(/\.r66$/, '') : 'nofile');
  v.set('FILESIZE', file ? fileSize(file) : '0');
  const t = ctx.transfer;
  if (t) {
    v.set('ORIGINALFULLPATH', t.originalName);
    v.set('ORIGINALFILENAME', originalBaseName(t.originalName));
    v.set('RULE', t.idRule);
    v.set('TRANSFERID', t.specialId.toString());
    v.set('REQUESTERHOST', t.requester);
    v.set('REQUESTEDHOST', t.requested);
    v.set('FULLTRANSFERID', `${t.specialId}_${t.requester}_${t.requested}`);
    v.set('RANKTRANSFER', String(t.rank));
    v.set('BLOCKSIZE', String(t.blockSize));
  }
  const { date, hour } = dateAndHour(nowOf(ctx));
  v.set('DATE', date);
  v.set('HOUR', hour);
  const s = ctx.session;
  if (s.remoteHostId !== null) v.set('REMOTEHOST', s.remoteHostId);
  if (s.localHostId !== null) v.set('LOCALHOST', s.localHostId);
  const remoteAddr = s.remoteAddress ?? 'unknown';
  const localAddr = s.localAddress ?? 'unknown';
  v.set('REMOTEHOSTADDR', remoteAddr);
  v.set('LOCALHOSTADDR', localAddr);
  // The original's documentation names these; its code does not know them. Harmless aliases.
  v.set('REMOTEHOSTIP', remoteAddr);
  v.set('LOCALHOSTIP', localAddr);
  const d = ctx.dirs;
  if (d.in !== undefined) v.set('INPATH', d.in);
  if (d.out !== undefined) v.set('OUTPATH', d.out);
  if (d.work !== undefined) v.set('WORKPATH', d.work);
  if (d.arch !== undefined) v.set('ARCHPATH', d.arch);
  v.set('HOMEPATH', d.home);
  v.set('ERRORMSG', ctx.error?.message ?? 'NoError');
  v.set('ERRORCODE', ctx.error?.code.char ?? '-');
  v.set('ERRORSTRCODE', ctx.error?.code.name ?? 'Unknown');
  return v;
}
