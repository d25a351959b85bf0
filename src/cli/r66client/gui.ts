/**
 * `svc-r66client gui`: the original opens a desktop transfer client; this one serves a local page
 * on 127.0.0.1 (random port) and prints its URL with a one-time token. The page sends a file, pulls
 * one (a transfer with a receive rule), lists a partner's files, and follows the transfers it
 * started and the client's recent transfers. Each action runs the very CLI command (send, getinfo)
 * with the options the form gives, so behaviour, checks and messages are the CLI's. Stops on
 * Ctrl-C / SIGTERM (exit 0).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { formatIsoLocal } from '../../model/iso-date.js';
import { csrfForm } from '../../web/admin/context.js';
import { SessionStore } from '../../web/admin/sessions.js';
import { field, html, notice, page, table, type Html } from '../../web/html.js';
import { translator } from '../../web/i18n.js';
import { cookie, readParams, text, type Params } from '../../web/params.js';
import { createWebApp, sendHtml } from '../../web/server.js';
import { safeEqual } from '../../http/credentials.js';
import { silentLogger } from '../../server/logger.js';
import { getinfoCommand } from './getinfo.js';
import { sendCommand } from './send.js';
import { configFileAndArgs, withSession, type ClientCommandContext } from './session.js';
import type { Io } from '../io.js';

interface Job {
  id: number;
  command: string;
  args: string[];
  started: Date;
  exit?: number;
  output: string;
}

/** At most this many finished jobs are kept (with their output, cut to a few KiB each). */
const MAX_JOBS = 50;
const MAX_OUTPUT = 16 * 1024;

type Runner = (ctx: ClientCommandContext, argv: readonly string[]) => Promise<number>;

export async function guiCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  const { configFile, args } = configFileAndArgs(ctx.instance, argv);
  if (args.length > 0) {
    ctx.io.err(`svc-r66client gui: unexpected argument ${args[0]} (usage: svc-r66client gui)\n`);
    return 1;
  }
  const t = translator('en');
  const jobs: Job[] = [];
  let nextJob = 1;
  let token: string | undefined = randomBytes(16).toString('hex');
  const sessions = new SessionStore('gui', { idleMs: 12 * 3600_000, maxSessions: 4 });

  const run = (command: string, runner: Runner, argsOf: string[]): Job => {
    const job: Job = { id: nextJob++, command, args: argsOf, started: new Date(), output: '' };
    const append = (s: string): void => {
      if (job.output.length < MAX_OUTPUT) job.output += s.slice(0, MAX_OUTPUT - job.output.length);
    };
    const io: Io = { out: append, err: append };
    jobs.unshift(job);
    while (jobs.length > MAX_JOBS) jobs.pop();
    // The same command as typed on the command line, with this client's configuration file.
    void runner({ instance: ctx.instance, io, isTty: false }, [configFile, ...argsOf]).then(
      (code) => { job.exit = code; },
      (err: unknown) => { append(`${err instanceof Error ? err.message : String(err)}\n`); job.exit = 1; },
    );
    return job;
  };

  const transferArgs = (p: Params): string[] | string => {
    const to = text(p, 'to');
    const file = text(p, 'file');
    const rule = text(p, 'rule');
    if (to === undefined || file === undefined || rule === undefined) return 'to, file and rule are required';
    const a = ['-to', to, '-file', file, '-rule', rule];
    const info = text(p, 'info');
    if (info !== undefined) a.push('-info', info);
    const block = text(p, 'block');
    if (block !== undefined) a.push('-block', block);
    if (p.md5 !== undefined) a.push('-md5');
    return a;
  };

  const recentTransfers = async (): Promise<Html> => {
    try {
      const rows = await withSession(configFile, {}, async (s) => s.store.runner.list({}, { orderBy: 'start', descending: true, limit: 20 }));
      return table(t('transfers'), ['SPECIALID', 'IDRULE', 'FILENAME', 'REQUESTER', 'REQUESTED', 'STEPSTATUS', 'RANK', 'STARTTRANS'],
        rows.map((r) => [html`${r.specialId.toString()}`, html`${r.idRule}`, html`${r.filename}`, html`${r.requester}`, html`${r.requested}`, html`${r.stepStatus.char} ${r.stepStatus.name}`, html`${r.rank}`, html`${formatIsoLocal(r.start)}`]));
    } catch (err) {
      return notice(`the client's transfers cannot be read: ${err instanceof Error ? err.message : String(err)}`, false);
    }
  };

  const render = async (session: { csrf: string }, message?: Html): Promise<string> => {
    const s = { id: '', user: 'gui', role: 0, csrf: session.csrf, expires: 0 };
    const form = (action: string, legend: string, content: Html, button: string): Html =>
      html`<h2>${legend}</h2>${csrfForm(s, action, html`${content}<div class="actions"><button type="submit">${button}</button></div>`)}`;
    const transferFields = (fileLabel: string): Html => html`${field('Partner (-to)', 'to', undefined, 'text', 'required')}${field(fileLabel, 'file', undefined, 'text', 'required')}
${field('Rule (-rule)', 'rule', undefined, 'text', 'required')}${field('Information (-info)', 'info', undefined)}${field('Block size (-block)', 'block', undefined, 'number', 'min="100"')}${field('-md5', 'md5', undefined, 'checkbox')}`;
    const running = jobs.some((j) => j.exit === undefined);
    const jobRows = jobs.map((j) => [html`${j.id}`, html`svc-r66client ${j.command} ${j.args.join(' ')}`, html`${formatIsoLocal(j.started)}`,
      html`${j.exit === undefined ? t('running') : `exit ${j.exit}`}`, html`<pre class="wrap">${j.output}</pre>`]);
    const body = html`${message ?? ''}
${form('/send', 'Send a file (send)', transferFields('Local file (-file)'), 'Send')}
${form('/pull', 'Pull a file (send with a receive rule)', transferFields('File on the partner (-file)'), 'Pull')}
${form('/list', "List a partner's files (getinfo -list)", html`${field('Partner (-to)', 'to', undefined, 'text', 'required')}${field('Rule (-rule)', 'rule', undefined, 'text', 'required')}${field('Pattern (-file)', 'file', '*')}`, 'List')}
<h2>Commands run from this page</h2>${table('Commands', ['#', 'command', t('date'), t('status'), 'output'], jobRows)}
<h2>${t('transfers')}</h2>${await recentTransfers()}`;
    return page({ lang: 'en', t, path: '/', title: 'svc-r66 client', facts: [['configuration', configFile]], nav: [], ...(running ? { refresh: 2 } : {}) }, body);
  };

  const app = createWebApp(silentLogger());
  const handler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const path = (req.raw.url ?? '/').split('?')[0]!;
    const { params } = readParams(req);
    let session = sessions.get(cookie(req, sessions.cookieName));
    if (session === undefined) {
      // The printed URL's token opens one session, once; nothing else does.
      if (token === undefined || params.token === undefined || !safeEqual(params.token, token)) return reply.code(403).type('text/plain').send('Open the URL printed by svc-r66client gui (its token is for one use).\n');
      token = undefined;
      session = sessions.create('gui', 0);
      return reply.code(303).header('set-cookie', `${sessions.cookieName}=${session.id}; Path=/; HttpOnly; SameSite=Strict`).header('location', '/').send();
    }
    if (req.method !== 'POST') return sendHtml(reply, await render(session));
    if (!safeEqual(params.csrf ?? '', session.csrf)) return sendHtml(reply, await render(session, notice(t('forged'), false)), 403);
    let job: Job | string;
    if (path === '/send' || path === '/pull') {
      const a = transferArgs(params);
      job = typeof a === 'string' ? a : run('send', sendCommand, a);
    } else if (path === '/list') {
      const to = text(params, 'to');
      const rule = text(params, 'rule');
      job = to === undefined || rule === undefined ? 'to and rule are required' : run('getinfo', getinfoCommand, ['-to', to, '-rule', rule, '-file', text(params, 'file') ?? '*', '-list']);
    } else job = `unknown action ${path}`;
    // Post/redirect/get: a reload does not run the command again.
    if (typeof job === 'string') return sendHtml(reply, await render(session, notice(job, false)), 400);
    return reply.code(303).header('location', '/').send();
  };
  app.route({ method: ['GET', 'POST'], url: '/*', handler });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  ctx.io.out(`svc-r66client gui: open http://127.0.0.1:${port}/?token=${token} in a browser on this machine (the link works once). Stop with Ctrl-C.\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await app.close();
  return 0;
}

