/**
 * The ICAP exchange of icap.md §2 (RFC 3507): OPTIONS when the preview size is not given, then one
 * RESPMOD with a preview, the rest of the file in `-blockSize` chunks after `100 Continue`, and the
 * final verdict. The file is streamed from disk: memory does not grow with its size.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { ERR, IcapConnection, IcapFailure } from './icap-connection.js';
import type { HeaderCheck, IcapOptions } from './icap-options.js';

export const USER_AGENT = 'svc ICAP Client/1.0';

/** Where the scanned bytes come from: a file on disk or the EICAR test string. */
export interface IcapSource {
  size: number;
  /** Reads up to `length` bytes at `position`. */
  read(position: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

export function bufferSource(data: Buffer): IcapSource {
  return { size: data.length, read: async (p, l) => data.subarray(p, p + l), close: async () => undefined };
}

export async function fileSource(path: string): Promise<IcapSource> {
  const fh: FileHandle = await open(path, 'r');
  const { size } = await fh.stat();
  return {
    size,
    read: async (position, length) => {
      const buf = Buffer.allocUnsafe(length);
      const { bytesRead } = await fh.read(buf, 0, length, position);
      return buf.subarray(0, bytesRead);
    },
    close: () => fh.close(),
  };
}

/** A parsed ICAP response header. */
export interface IcapAnswer {
  status: number;
  statusLine: string;
  headers: Map<string, string>;
}

/**
 * Status = the text between the first and the second space of the status line (a line without a
 * reason phrase is accepted too); header lines `Name: value`, parsing stopping at the first line
 * without `:` (icap.md §2.4). Names are matched case-insensitively, as ICAP/HTTP headers are.
 */
export function parseAnswer(header: string): IcapAnswer {
  const lines = header.split('\r\n');
  const statusLine = lines[0] ?? '';
  const code = statusLine.split(' ')[1] ?? '';
  if (!/^\d{3}$/.test(code)) throw new IcapFailure(2, ERR.UNKNOWN_CODE, `unparsable ICAP status line "${statusLine.slice(0, 80)}"`);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon < 0) break;
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(code), statusLine, headers };
}

function headerHas(answer: IcapAnswer, check: HeaderCheck): boolean {
  return (answer.headers.get(check.key.toLowerCase()) ?? '').includes(check.text);
}

/** Java's URLEncoder (form encoding, UTF-8): `/` -> `%2F`, space -> `+`, `*` kept. */
export function formEncode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

export function optionsRequest(o: IcapOptions): string {
  return `OPTIONS icap://${o.host}/${o.service} ICAP/1.0\r\nHost: ${o.host}\r\nUser-Agent: ${USER_AGENT}\r\nAllow: 204\r\nEncapsulated: null-body=0\r\n\r\n`;
}

/** The RESPMOD header with its encapsulated HTTP request and response headers (icap.md §2.2). */
export function respmodHeader(o: IcapOptions, preview: number, size: number): string {
  const req = `GET /${formEncode(o.file)} HTTP/1.1\r\nHost: ${o.host}:${o.port}\r\n\r\n`;
  const res = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: ${size}\r\n\r\n`;
  const a = Buffer.byteLength(req);
  const b = a + Buffer.byteLength(res);
  return (
    `RESPMOD icap://${o.host}/${o.service} ICAP/1.0\r\nHost: ${o.host}\r\nUser-Agent: ${USER_AGENT}\r\nAllow: 204\r\n` +
    `Preview: ${preview}\r\nEncapsulated: req-hdr=0, res-hdr=${a}, res-body=${b}\r\n\r\n${req}${res}`
  );
}

export type Verdict = { ok: boolean; reason: string };

export type IcapLog = (level: 'debug' | 'info', msg: string) => void;

/** Negotiates the preview size with OPTIONS (§2.1). */
async function negotiatePreview(conn: IcapConnection, o: IcapOptions, log: IcapLog): Promise<number> {
  await conn.write(optionsRequest(o));
  const answer = parseAnswer(await conn.readHeader(o.receiveSize));
  log('debug', `OPTIONS answer: ${answer.statusLine}`);
  if (answer.status === 404) throw new IcapFailure(2, ERR.SERVICE_UNKNOWN, `ICAP service "${o.service}" unknown to the server (404)`);
  if (answer.status !== 200) throw new IcapFailure(2, ERR.UNKNOWN_CODE, `OPTIONS answered "${answer.statusLine}"`);
  const preview = answer.headers.get('preview');
  if (preview === undefined || !/^-?\d+$/.test(preview.trim())) throw new IcapFailure(2, ERR.MISSING_INFO, 'OPTIONS answer without a Preview header');
  if (o.previewCheck && !headerHas(answer, o.previewCheck)) {
    throw new IcapFailure(2, ERR.MISSING_INFO, `OPTIONS answer header ${o.previewCheck.key} does not contain "${o.previewCheck.text}"`);
  }
  return Math.max(0, Number(preview.trim()));
}

async function sendChunk(conn: IcapConnection, data: Buffer): Promise<void> {
  await conn.write(`${data.length.toString(16)}\r\n`);
  await conn.write(data);
  await conn.write('\r\n');
}

/** The final verdict (§2.4). */
async function finalVerdict(conn: IcapConnection, o: IcapOptions, log: IcapLog): Promise<Verdict> {
  const answer = parseAnswer(await conn.readHeader(o.receiveSize));
  log('debug', `RESPMOD answer: ${answer.statusLine}`);
  if (answer.status === 204) {
    if (o.check204 && !headerHas(answer, o.check204)) return { ok: false, reason: `204 answer header ${o.check204.key} does not contain "${o.check204.text}"` };
    return { ok: true, reason: 'no modification needed (204)' };
  }
  if (answer.status === 200) {
    if (o.check200 && headerHas(answer, o.check200)) return { ok: true, reason: `200 answer header ${o.check200.key} contains "${o.check200.text}"` };
    if (o.stringHttp !== undefined) {
      const http = await conn.readBody(o.receiveSize);
      if (http.includes(o.stringHttp)) return { ok: true, reason: `200 answer HTTP part contains "${o.stringHttp}"` };
    }
    const found = answer.headers.get('x-infection-found') ?? answer.headers.get('x-violations-found');
    return { ok: false, reason: `content modified by the ICAP server (200)${found ? `: ${found}` : ''}` };
  }
  if (answer.status === 404) throw new IcapFailure(2, ERR.SERVICE_UNKNOWN, `ICAP service "${o.service}" unknown to the server (404)`);
  throw new IcapFailure(2, ERR.UNKNOWN_CODE, `unexpected ICAP answer "${answer.statusLine}"`);
}

/**
 * Runs the exchange on `source`. Returns the verdict; throws IcapFailure for protocol (2) and
 * network (3) errors.
 */
export async function icapExchange(o: IcapOptions, source: IcapSource, log: IcapLog): Promise<Verdict> {
  const conn = await IcapConnection.open(o.host, o.port, o.timeoutMs, o.receiveSize);
  try {
    const negotiated = o.previewSize ?? (await negotiatePreview(conn, o, log));
    const size = source.size;
    const preview = Math.min(negotiated, size);
    await conn.write(respmodHeader(o, preview, size));
    let sent = 0;
    if (preview > 0) {
      const data = await source.read(0, preview);
      await sendChunk(conn, data);
      sent = data.length;
    }
    // The whole file fits in the preview: `ieof` tells the server no more data will come.
    await conn.write(size <= preview ? '0; ieof\r\n\r\n' : '0\r\n\r\n');
    log('debug', `RESPMOD sent with a preview of ${preview} of ${size} bytes`);
    if (size > preview) {
      const answer = parseAnswer(await conn.readHeader(o.receiveSize));
      log('debug', `preview answer: ${answer.statusLine}`);
      if (answer.status === 204) return { ok: true, reason: 'no modification needed after the preview (204)' };
      if (answer.status === 200) return { ok: false, reason: 'content modified by the ICAP server after the preview (200)' };
      if (answer.status === 404) throw new IcapFailure(2, ERR.SERVICE_UNKNOWN, `ICAP service "${o.service}" unknown to the server (404)`);
      if (answer.status !== 100) throw new IcapFailure(2, ERR.UNKNOWN_CODE, `unexpected ICAP answer to the preview "${answer.statusLine}"`);
      while (sent < size) {
        const data = await source.read(sent, Math.min(o.blockSize, size - sent));
        if (data.length === 0) throw new IcapFailure(1, ERR.ARGUMENT, `file shrank while being sent (${sent} of ${size} bytes)`);
        await sendChunk(conn, data);
        sent += data.length;
      }
      await conn.write('0\r\n\r\n');
      log('debug', `${sent} bytes sent`);
    }
    return await finalVerdict(conn, o, log);
  } finally {
    conn.close();
  }
}
