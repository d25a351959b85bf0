/**
 * Digest algorithms of the R66 protocol (spec r66-protocol.md §10.1, packets §17): the server.xml
 * index, the enum name, the name announced on the wire (`DIGESTALGO`) and the digest size.
 */

/** Enum names of the algorithms, in index order. */
export type DigestName = 'CRC32' | 'ADLER32' | 'MD5' | 'MD2' | 'SHA1' | 'SHA256' | 'SHA384' | 'SHA512';

export interface DigestAlgorithm {
  /** Index in server.xml `limit/digest`. */
  readonly index: number;
  readonly name: DigestName;
  /** Name in the Authent version JSON (`DIGESTALGO`). */
  readonly wireName: string;
  /** Digest size in bytes; null for CRC32/ADLER32, whose "digest" is variable-length octal text. */
  readonly size: number | null;
}

function algo(index: number, name: DigestName, wireName: string, size: number | null): DigestAlgorithm {
  return Object.freeze({ index, name, wireName, size });
}

/** The algorithms by index (0..7). */
export const DIGEST_ALGORITHMS: readonly DigestAlgorithm[] = Object.freeze([
  algo(0, 'CRC32', 'CRC32', null),
  algo(1, 'ADLER32', 'ADLER32', null),
  algo(2, 'MD5', 'MD5', 16),
  algo(3, 'MD2', 'MD2', 16),
  algo(4, 'SHA1', 'SHA-1', 20),
  algo(5, 'SHA256', 'SHA-256', 32),
  algo(6, 'SHA384', 'SHA-384', 48),
  algo(7, 'SHA512', 'SHA-512', 64),
]);

/** Named access: `Digest.MD5`, `Digest.SHA512`, ... */
export const Digest: Readonly<Record<DigestName, DigestAlgorithm>> = Object.freeze(
  Object.fromEntries(DIGEST_ALGORITHMS.map((d) => [d.name, d])) as Record<DigestName, DigestAlgorithm>,
);

/** The default digest (index 2). */
export const DEFAULT_DIGEST = Digest.MD5;

/** server.xml index -> algorithm. An out-of-range index means CRC32, as in the original. */
export function digestFromIndex(index: number): DigestAlgorithm {
  return DIGEST_ALGORITHMS[index] ?? Digest.CRC32;
}

/**
 * Wire name (or enum spelling such as `SHA512`) -> algorithm, or undefined when unknown (the
 * caller then falls back to its own configured digest, as a Java host does).
 */
export function digestFromWireName(name: string): DigestAlgorithm | undefined {
  return DIGEST_ALGORITHMS.find((d) => d.wireName === name || d.name === name);
}
