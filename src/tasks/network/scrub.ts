/** Keeps secrets (FTP passwords, S3 secret keys) out of every text a task logs or returns. */

/** `text` with every occurrence of a non-empty secret replaced by `***`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('***');
  return out;
}
