/**
 * A global hash computed on a hashing thread (global-hash.ts says when, decision 0054 why).
 *
 * The data is copied into batches of 512 KiB whose memory is handed to the thread (transferred, not
 * copied again) and handed back once hashed, so each hash reuses a few batches for the whole file:
 * the caller's buffers (the frame pool's) are free again as soon as update() returns, and the copy
 * (1 GiB in about 0.1 s) costs the main thread far less than the hash it no longer computes
 * (SHA-512: 1.5 s per GiB). A hash keeps at most BATCHES_IN_FLIGHT batches on their way; room()
 * makes the data loop wait beyond that.
 *
 * A few threads serve the process's transfers (one per core but the main thread's, at most four);
 * each hash goes to the thread with the fewest hashes and keeps it, since its bytes must be hashed
 * in order. A thread that fails or ends fails its hashes (the transfers end in error, and can be
 * restarted) and the next hash starts a new one. The threads are started on first use and do not
 * keep the process alive while idle.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { GlobalHash } from './global-hash.js';

/** Bytes per batch handed to the thread: 2048 messages a GiB, each about 10 µs of the main thread. */
const BATCH_BYTES = 512 << 10;
/**
 * Batches one hash may have on the thread before room() waits. A transfer's hash holds about this
 * many batches and one more (the one being filled), 2.5 MiB, whatever the file's size.
 */
const BATCHES_IN_FLIGHT = 4;
/** Hashing threads of the process, at most. */
const MAX_THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));

/**
 * The thread's code: evaluated as a script (no file to find next to the compiled module, the same
 * under the tests' TypeScript and the built dist/). One running hash per transfer, by id.
 */
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (m) => {
  try {
    if (m.op === 'data') {
      let h = hashes.get(m.id);
      if (h === undefined) { h = createHash(m.algorithm); hashes.set(m.id, h); }
      h.update(new Uint8Array(m.buffer, 0, m.length));
      parentPort.postMessage({ op: 'hashed', id: m.id, buffer: m.buffer }, [m.buffer]);
    } else if (m.op === 'end') {
      const h = hashes.get(m.id) ?? createHash(m.algorithm);
      hashes.delete(m.id);
      const d = h.digest();
      parentPort.postMessage({ op: 'digest', id: m.id, digest: d });
    } else if (m.op === 'drop') {
      hashes.delete(m.id);
    }
  } catch (err) {
    hashes.delete(m.id);
    parentPort.postMessage({ op: 'error', id: m.id, message: String((err && err.message) || err) });
  }
});
`;

type ToThread =
  | { op: 'data'; id: number; algorithm: string; buffer: ArrayBuffer; length: number }
  | { op: 'end'; id: number; algorithm: string }
  | { op: 'drop'; id: number };

type FromThread =
  | { op: 'hashed'; id: number; buffer: ArrayBuffer }
  | { op: 'digest'; id: number; digest: Uint8Array }
  | { op: 'error'; id: number; message: string };

/** One hashing thread and the hashes it serves. */
class HashThread {
  private readonly worker: Worker;
  readonly hashes = new Map<number, OffThreadHash>();
  private ended = false;

  constructor(private readonly onEnd: (thread: HashThread) => void) {
    this.worker = new Worker(THREAD_SOURCE, { eval: true });
    this.worker.unref();
    this.worker.on('message', (m: FromThread) => this.hashes.get(m.id)?.fromThread(m));
    this.worker.on('error', (err) => this.end(err));
    this.worker.on('exit', (code) => this.end(new Error(`the hashing thread ended (exit code ${code})`)));
  }

  add(hash: OffThreadHash): void {
    // Kept alive while it holds a hash: a transfer waiting for its digest must get it.
    if (this.hashes.size === 0) this.worker.ref();
    this.hashes.set(hash.id, hash);
  }

  remove(id: number): void {
    if (this.hashes.delete(id) && this.hashes.size === 0) this.worker.unref();
  }

  post(message: ToThread, transfer?: ArrayBuffer[]): void {
    if (!this.ended) this.worker.postMessage(message, transfer);
  }

  private end(err: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(this);
    const failure = new Error(`the global hash could not be computed: ${err.message}`);
    for (const hash of [...this.hashes.values()]) hash.fail(failure);
    this.hashes.clear();
    void this.worker.terminate().catch(() => undefined);
  }
}

const threads: HashThread[] = [];

/** The thread for a new hash: the one with the fewest, or a new one while there are fewer than MAX_THREADS. */
function threadForNewHash(): HashThread {
  let best: HashThread | undefined;
  for (const t of threads) if (best === undefined || t.hashes.size < best.hashes.size) best = t;
  if (best !== undefined && (best.hashes.size === 0 || threads.length >= MAX_THREADS)) return best;
  const made = new HashThread((ended) => {
    const at = threads.indexOf(ended);
    if (at >= 0) threads.splice(at, 1);
  });
  threads.push(made);
  return made;
}

let lastId = 0;

/** Hashes this process started on a hashing thread (what tells a test, or a profile, that it happened). */
export const offThreadHashCounters = { hashes: 0 };

export class OffThreadHash implements GlobalHash {
  readonly id = ++lastId;
  private readonly thread = threadForNewHash();
  private batch: Buffer | null = null;
  private used = 0;
  /** Batches the thread handed back, for the next ones. */
  private readonly spare: ArrayBuffer[] = [];
  private inFlight = 0;
  private waiting: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  private result: { resolve: (digest: Buffer) => void; reject: (err: Error) => void } | null = null;
  private failure: Error | null = null;
  private finished = false;

  /** `nodeName`: Node's name of the algorithm (protocol/digest.ts NODE_HASH_NAMES). */
  constructor(private readonly nodeName: string) {
    this.thread.add(this);
    offThreadHashCounters.hashes++;
  }

  update(data: Uint8Array): void {
    if (this.finished) throw new Error('the global hash was already finished');
    // A failed hash takes no more data; room() and digest() report the failure.
    if (this.failure !== null) return;
    let at = 0;
    while (at < data.length) {
      if (this.batch === null) {
        this.batch = Buffer.from(this.spare.pop() ?? new ArrayBuffer(BATCH_BYTES));
        this.used = 0;
      }
      const n = Math.min(data.length - at, BATCH_BYTES - this.used);
      this.batch.set(data.subarray(at, at + n), this.used);
      this.used += n;
      at += n;
      if (this.used === BATCH_BYTES) this.send();
    }
  }

  room(): Promise<void> | null {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.inFlight < BATCHES_IN_FLIGHT) return null;
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  digest(): Promise<Buffer> {
    if (this.finished) return Promise.reject(new Error('the global hash was already finished'));
    this.finished = true;
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.used > 0) this.send();
    return new Promise<Buffer>((resolve, reject) => {
      this.result = { resolve, reject };
      this.thread.post({ op: 'end', id: this.id, algorithm: this.nodeName });
    });
  }

  discard(): void {
    if (this.finished) return;
    this.finished = true;
    this.thread.post({ op: 'drop', id: this.id });
    this.thread.remove(this.id);
    this.wake();
  }

  /** A message of the thread about this hash. */
  fromThread(m: FromThread): void {
    switch (m.op) {
      case 'hashed':
        this.inFlight--;
        if (this.spare.length < BATCHES_IN_FLIGHT) this.spare.push(m.buffer);
        if (this.inFlight < BATCHES_IN_FLIGHT) this.wake();
        return;
      case 'digest':
        this.thread.remove(this.id);
        this.result?.resolve(Buffer.from(m.digest.buffer, m.digest.byteOffset, m.digest.byteLength));
        this.result = null;
        return;
      case 'error':
        this.thread.post({ op: 'drop', id: this.id });
        this.thread.remove(this.id);
        this.fail(new Error(`the global hash could not be computed: ${m.message}`));
    }
  }

  /** Ends the hash in error: a waiting room() or digest() rejects, later ones too. */
  fail(err: Error): void {
    if (this.failure !== null) return;
    this.failure = err;
    this.batch = null;
    for (const w of this.waiting.splice(0)) w.reject(err);
    this.result?.reject(err);
    this.result = null;
  }

  private send(): void {
    const batch = this.batch as Buffer;
    this.batch = null;
    this.inFlight++;
    this.thread.post({ op: 'data', id: this.id, algorithm: this.nodeName, buffer: batch.buffer as ArrayBuffer, length: this.used }, [batch.buffer as ArrayBuffer]);
    this.used = 0;
  }

  private wake(): void {
    for (const w of this.waiting.splice(0)) w.resolve();
  }
}
