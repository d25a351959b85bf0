/**
 * The progress bar of the synchronous transfer commands: on a terminal only (stderr, so a script
 * reading stdout never sees it), and only for transfers still running after a second, so short
 * transfers print nothing but their result.
 */
import type cliProgress from 'cli-progress';
import type { TransferEngine, TransferProgress } from '../../transfer/index.js';

type CliProgress = typeof cliProgress;

/**
 * cli-progress, loaded the first time a bar is due: most commands never show one (not a terminal,
 * or transfers under a second), and every module loaded is start-up time (decision 0052).
 */
let library: Promise<CliProgress> | undefined;
function loadLibrary(): Promise<CliProgress> {
  library ??= import('cli-progress').then((m) => m.default);
  return library;
}

const SHOW_AFTER_MS = 1000;

export interface ProgressHandle {
  stop(): void;
}

/** `id`: only that transfer's progress (several may run in one process: msend). */
export function showProgress(engine: TransferEngine, isTty: boolean, enabled: boolean, id?: bigint): ProgressHandle {
  if (!isTty || !enabled) return { stop: () => undefined };
  const started = Date.now();
  let lib: CliProgress | undefined;
  let bar: cliProgress.SingleBar | undefined;
  const onProgress = (p: TransferProgress): void => {
    if (id !== undefined && p.ref.specialId !== id) return;
    if (bar === undefined) {
      if (Date.now() - started < SHOW_AFTER_MS) return;
      if (lib === undefined) {
        // The bar appears with the first progress after the library is loaded.
        void loadLibrary().then((l) => (lib = l), () => undefined);
        return;
      }
      bar = new lib.SingleBar(
        { format: `${p.isSender ? 'send' : 'recv'} [{bar}] {percentage}% {value}/{total} bytes | ETA {eta}s`, stream: process.stderr, hideCursor: true },
        lib.Presets.shades_classic,
      );
      bar.start(p.size > 0 ? p.size : p.bytes, p.bytes);
    }
    if (p.size <= 0) bar.setTotal(p.bytes);
    bar.update(p.bytes);
  };
  engine.on('progress', onProgress);
  return {
    stop: () => {
      engine.off('progress', onProgress);
      bar?.stop();
    },
  };
}
