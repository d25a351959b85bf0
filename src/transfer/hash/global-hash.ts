/**
 * The whole-file (global) hash of a transfer (r66-protocol.md §10.3), computed on this thread or
 * on a hashing thread (off-thread-hash.ts).
 *
 * Both sides hash every byte of a transfer once. On the main thread that time adds to the time of
 * the data path (reads, socket, writes): SHA-512 runs at about 700 MB/s, as long as a loopback copy
 * of the same bytes. On a machine with cores to spare a large file's hash therefore goes to a
 * hashing thread, where it runs beside the data path (decision 0054); a small file's stays here,
 * where a thread's round trips would cost more than its hash.
 */
import { availableParallelism } from 'node:os';
import { NODE_HASH_NAMES, createR66Digest, type R66Digest } from '../../protocol/index.js';
import type { DigestAlgorithm } from '../../model/digest.js';
import { envFlag } from '../../config/env-flag.js';
import { OffThreadHash } from './off-thread-hash.js';

const CORES = availableParallelism();

export interface GlobalHash {
  /** Adds `data`; the caller may reuse its buffer as soon as this returns. */
  update(data: Uint8Array): void;
  /**
   * Settles once the bytes not hashed yet are few enough (off-thread: a few MiB); null when there
   * is nothing to wait for. The data loops wait on it where they wait anyway, so memory stays
   * bounded when the hashing thread is slower than the data path.
   */
  room(): Promise<void> | null;
  /** The digest bytes of everything added (once). */
  digest(): Promise<Buffer>;
  /** Ends the hash without a result (a failed transfer): frees what the hashing thread holds. */
  discard(): void;
}

/** Files from this size on are hashed off the main thread (when the engine's hashThread is on). */
export const OFF_THREAD_MIN_BYTES = 8 << 20;

/**
 * Whether a transfer of `size` bytes (-1: unknown) with `algorithm` is hashed off the main thread:
 * `allowed` (the engine's hashThread, hashThreadFrom()), a large file, and a hash OpenSSL computes
 * (CRC32, ADLER32 and MD2 are ours, and cheap or rare).
 */
export function hashesOffThread(algorithm: DigestAlgorithm, size: number, allowed: boolean): boolean {
  return allowed && size >= OFF_THREAD_MIN_BYTES && NODE_HASH_NAMES[algorithm.name] !== undefined;
}

/** A global hash for a transfer of `size` bytes (-1: unknown); `offThreadAllowed`: see hashesOffThread(). */
export function createGlobalHash(algorithm: DigestAlgorithm, size: number, offThreadAllowed: boolean): GlobalHash {
  if (hashesOffThread(algorithm, size, offThreadAllowed)) return new OffThreadHash(NODE_HASH_NAMES[algorithm.name] as string);
  return new InlineGlobalHash(createR66Digest(algorithm));
}

/**
 * `SVC_R66_HASH_THREAD`: 1 hashes large files on a hashing thread, 0 always on the main thread; by
 * default the thread is used on a machine of more than two cores. On two, a host's main thread,
 * its hashing thread, its thread pool and the partner's (on the same machine, as in the bench, or
 * any other busy process) share the cores: the copy to the thread was measured slower there, never
 * faster (decision 0054). A value that is neither stops the start (EnvSettingError).
 */
export function hashThreadFrom(env: NodeJS.ProcessEnv, cores: number = CORES): boolean {
  return envFlag(env, 'SVC_R66_HASH_THREAD') ?? cores > 2;
}

/** A global hash on this thread, around a running digest (one that may already hold data). */
export class InlineGlobalHash implements GlobalHash {
  constructor(private readonly running: R66Digest) {}

  update(data: Uint8Array): void {
    this.running.update(data);
  }

  room(): null {
    return null;
  }

  digest(): Promise<Buffer> {
    return Promise.resolve(this.running.digest());
  }

  discard(): void {}
}
