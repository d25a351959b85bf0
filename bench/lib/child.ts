/**
 * Child processes of the benchmark. Raw peers talk to the harness with JSON lines on stdout
 * ({"event":"ready",...}, {"event":"done",...}); every child's stderr is kept (the tail goes into
 * error messages) and an early exit fails whoever is waiting instead of hanging the run.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface PeerEvent {
  event: string;
  [key: string]: unknown;
}

const TAIL = 2000;
/** Output kept per child (the tail): enough for the result lines of a client command. */
const OUT_KEPT = 4 * 1024 * 1024;
const WARNINGS_KEPT = 5;

export class Child {
  readonly proc: ChildProcess;
  private out = '';
  private err = '';
  private readonly events: PeerEvent[] = [];
  private waiters: Array<() => void> = [];
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly name: string, command: string, args: string[], opts: SpawnOptions = {}) {
    this.proc = spawn(command, args, { ...opts, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout?.setEncoding('utf8').on('data', (d: string) => this.onOut(d));
    this.proc.stderr?.setEncoding('utf8').on('data', (d: string) => {
      this.err = (this.err + d).slice(-64 * 1024);
    });
    this.exited = new Promise((resolve) => {
      this.proc.on('close', (code, signal) => {
        this.exit = { code, signal };
        this.wake();
        resolve(this.exit);
      });
      this.proc.on('error', (e) => {
        this.err += `\n${e.message}`;
        this.exit = { code: -1, signal: null };
        this.wake();
        resolve(this.exit);
      });
    });
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  /** The output so far (its last OUT_KEPT characters). */
  stdout(): string {
    return this.out;
  }

  stderr(): string {
    return this.err;
  }

  private onOut(d: string): void {
    // Servers log every transfer: keep events and a bounded tail, not the whole output.
    let text = this.partial + d;
    let nl: number;
    while ((nl = text.indexOf('\n')) >= 0) {
      const line = text.slice(0, nl).trim();
      text = text.slice(nl + 1);
      if (line.startsWith('{"event"')) {
        try {
          this.events.push(JSON.parse(line) as PeerEvent);
        } catch {
          /* not an event after all */
        }
      } else if (/"level":(40|50|60)\b/.test(line)) {
        // svc servers log JSON (pino): warnings and errors are counted and the last ones kept.
        this.warningCount++;
        this.lastWarnings = [...this.lastWarnings.slice(-(WARNINGS_KEPT - 1)), line.slice(0, 500)];
      }
    }
    this.partial = text;
    this.out = (this.out + d).slice(-OUT_KEPT);
    this.wake();
  }

  private partial = '';
  /** Log lines at warning level or above seen so far (svc servers), and the last few of them. */
  warningCount = 0;
  lastWarnings: string[] = [];

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Waits for an output line containing `text` (plain output of the svc commands). */
  async waitText(text: string | RegExp, timeoutMs: number): Promise<void> {
    await this.until(() => (typeof text === 'string' ? this.out.includes(text) : text.test(this.out)), `output ${String(text)}`, timeoutMs);
  }

  async waitEvent(event: string, timeoutMs: number): Promise<PeerEvent> {
    let found: PeerEvent | undefined;
    await this.until(() => (found = this.events.find((e) => e.event === event)) !== undefined, `event ${event}`, timeoutMs);
    return found as PeerEvent;
  }

  private until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((f) => f !== poll);
        reject(new Error(`${this.name}: timed out after ${timeoutMs} ms waiting for ${what}${this.tail()}`));
      }, timeoutMs);
      const poll = (): void => {
        if (check()) {
          clearTimeout(timer);
          resolve();
        } else if (this.exit !== undefined) {
          clearTimeout(timer);
          reject(new Error(`${this.name}: exited (code ${this.exit.code}, signal ${this.exit.signal}) before ${what}${this.tail()}`));
        } else {
          this.waiters.push(poll);
        }
      };
      poll();
    });
  }

  private tail(): string {
    const t = (this.err.trim() || this.out.trim()).slice(-TAIL);
    return t === '' ? '' : `:\n${t}`;
  }

  send(line: string): void {
    this.proc.stdin?.write(`${line}\n`);
  }

  /**
   * Closes stdin (raw peers exit on it), sends `signal` if given (servers stop on SIGTERM), and
   * kills with SIGKILL if the process is still there after `graceMs`.
   */
  async stop(signal?: NodeJS.Signals, graceMs = 10_000): Promise<void> {
    if (this.exit !== undefined) return;
    this.proc.stdin?.end();
    if (signal !== undefined) this.proc.kill(signal);
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
