/**
 * One HTTP(S) request of push monitoring on node:http(s), shared by the REST and the search-service
 * targets: the body written as the chunks it was built in, an answer bounded in size (a receiver
 * that answers without end cannot fill the heap), a timeout. Rejects only when no answer came
 * (connection refused or reset, TLS failure, timeout): every HTTP status resolves.
 */
import type { Agent as HttpAgent, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The answer's body (empty when `maxAnswerBytes` is 0: read and dropped). */
  body: string;
}

export interface RequestOptions {
  method: 'GET' | 'POST';
  agent: HttpAgent;
  headers: Record<string, string | number>;
  timeoutMs: number;
  body?: readonly Buffer[];
  /** Most bytes of the answer kept; a longer answer rejects. 0 = read and drop the body. */
  maxAnswerBytes: number;
}

export function sendRequest(url: URL, o: RequestOptions): Promise<HttpAnswer> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = request(url, { method: o.method, agent: o.agent, headers: o.headers, timeout: o.timeoutMs }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (o.maxAnswerBytes === 0) return;
        size += chunk.length;
        if (size > o.maxAnswerBytes) {
          res.destroy(new Error(`the answer is longer than ${o.maxAnswerBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.once('error', reject);
    });
    req.once('timeout', () => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)));
    req.once('error', reject);
    // Written at once (the socket buffers what it cannot send yet): the request is bounded by the
    // exporter's batch size, and the receiver answers only after the whole body.
    for (const chunk of o.body ?? []) req.write(chunk);
    req.end();
  });
}
