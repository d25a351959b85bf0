// pino-roll ships no types: its default export opens a rolling file stream (SonicBoom).
declare module 'pino-roll' {
  const build: (options: Record<string, unknown>) => Promise<{ write(s: string): boolean; end(): void; flushSync(): void; readonly file: string | null; on(event: 'ready', listener: () => void): void }>;
  export default build;
}
