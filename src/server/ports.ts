/**
 * Port probing for the embedded default home: the original's ports (6666 plain, 6667 TLS) when
 * they are free, else ports the system hands out, so a first start never fails on a busy machine.
 */
import { createServer } from 'node:net';

/** Resolves true when a TCP listener can bind `port` on every interface right now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port the system considers free now (bind to 0, read it back, release it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `preferred` if free and not in `exclude`, else a system-chosen free port not in `exclude`. */
export async function pickPort(preferred: number, exclude: readonly number[] = []): Promise<number> {
  if (!exclude.includes(preferred) && (await isPortFree(preferred))) return preferred;
  for (;;) {
    const port = await freePort();
    if (!exclude.includes(port)) return port;
  }
}
