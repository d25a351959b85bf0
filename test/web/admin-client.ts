// A small HTTPS client for the administration area tests: trusts the test certificate, keeps the
// session cookie, posts forms, and can pick the CSRF token out of a page.
import { request } from 'node:https';

export interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

export class AdminClient {
  cookies = new Map<string, string>();

  constructor(readonly base: string, private readonly ca: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  send(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    const body = form === undefined ? undefined : new URLSearchParams(form).toString();
    return new Promise((resolve, reject) => {
      const req = request(this.base + path, {
        method, ca: this.ca, headers: { cookie: this.cookieHeader(), ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          for (const c of res.headers['set-cookie'] ?? []) {
            const [pair] = c.split(';');
            const eq = pair!.indexOf('=');
            const value = pair!.slice(eq + 1);
            if (/Max-Age=0/.test(c)) this.cookies.delete(pair!.slice(0, eq));
            else this.cookies.set(pair!.slice(0, eq), value);
          }
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  get(path: string): Promise<Answer> {
    return this.send('GET', path);
  }

  async login(name: string, passwd: string): Promise<Answer> {
    return this.send('POST', '/Logon.html', { name, passwd, Logon: 'Logon' });
  }

  /** Posts a form of `page` with the CSRF token read from that page. */
  async post(page: string, form: Record<string, string>): Promise<Answer> {
    const html = (await this.get(page)).body;
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
    return this.send('POST', page, { csrf, ...form });
  }
}
