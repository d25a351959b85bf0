/** Where a command prints: the human lines of the original wrappers go to stdout / stderr. */
export interface Io {
  /** Writes `text` as is to stdout (callers add the newline; some lines are completed later). */
  out(text: string): void;
  err(text: string): void;
}

export const processIo: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};
