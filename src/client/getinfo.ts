/**
 * `getinfo` on files (cli.md §3.7, r66-protocol.md §9.10): existence, MLSx detail, list or MLSx list
 * of files in a rule's send directory on the partner; or the record of a transfer by id.
 */
import { InformationKind, PacketType } from '../protocol/index.js';
import { unexpected } from '../net/commands/unexpected.js';
import type { ConnectionPool } from '../net/pool.js';

export type FileInfoRequest = 'exist' | 'detail' | 'list' | 'mlsx';

const KIND: Record<FileInfoRequest, number> = {
  exist: InformationKind.ASKEXIST,
  detail: InformationKind.ASKMLSDETAIL,
  list: InformationKind.ASKLIST,
  mlsx: InformationKind.ASKMLSLIST,
};

export interface InfoResult {
  /** The answer's header: `true`/`false`, one MLSx line, or lines each ending with `\n`. */
  header: string;
  /** The answer's middle: `1`, or the number of entries. */
  middle: string;
  /** The header split into lines (no empty trailing line). */
  lines: string[];
}

async function ask(pool: ConnectionPool, partnerId: string, ruleOrId: string, request: number, filename: string, timeoutMs: number): Promise<InfoResult> {
  const { channel } = await pool.openChannel(partnerId);
  try {
    await channel.send({ kind: 'information', ruleOrId, request, filename });
    const answer = await channel.receive(timeoutMs, 'the information answer');
    if (answer.kind !== 'valid' || answer.subType !== PacketType.INFORMATION) throw unexpected(answer, 'the information answer');
    return { header: answer.header, middle: answer.middle, lines: answer.header.split('\n').filter((l) => l.length > 0) };
  } finally {
    channel.close();
  }
}

/** Asks about files of `rule` on `partnerId`. `§` in the pattern stands for `*` (cli.md §3.7). */
export function getFileInfo(pool: ConnectionPool, partnerId: string, rule: string, request: FileInfoRequest, file: string, timeoutMs = 30_000): Promise<InfoResult> {
  return ask(pool, partnerId, rule, KIND[request], file.replace(/§/g, '*'), timeoutMs);
}

/**
 * Asks for the record of transfer `id` (runner XML in the header). `callerIsRequester` true
 * (`-reqfrom`... the end part `1`) looks for the transfer with requester = this host.
 */
export function getTransferInfo(pool: ConnectionPool, partnerId: string, id: bigint, callerIsRequester: boolean, timeoutMs = 30_000): Promise<InfoResult> {
  return ask(pool, partnerId, id.toString(), InformationKind.REQUEST_CHECK, callerIsRequester ? '1' : '0', timeoutMs);
}
