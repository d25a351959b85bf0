/**
 * What the built-in charset modules share: the codec interface; Java's names and aliases looked
 * up in any case, tables loaded on first use, one codec per charset; and reading a text one code
 * point at a time against an encoding table.
 */

/** Both directions between bytes of one charset and text. */
export interface Codec {
  decode(data: Buffer): string;
  encode(text: string): Buffer;
}

/** A charset of a generated table: Java's canonical name and its aliases. */
export interface NamedCharset {
  readonly name: string;
  readonly aliases: readonly string[];
}

/**
 * A lookup by any of Java's names (any case) over `charsets`; each codec is built by `build` when
 * first asked for, then kept.
 */
export function charsetLookup<C extends NamedCharset>(charsets: readonly C[], build: (charset: C) => Codec): (javaName: string) => Codec | null {
  const byName = new Map<string, C>();
  for (const charset of charsets) for (const name of [charset.name, ...charset.aliases]) byName.set(name.toLowerCase(), charset);
  const codecs = new Map<C, Codec>();
  return (javaName) => {
    const charset = byName.get(javaName.toLowerCase());
    if (!charset) return null;
    let codec = codecs.get(charset);
    if (!codec) codecs.set(charset, (codec = build(charset)));
    return codec;
  };
}

/** The same over charsets whose tables `loadCharsets` loads, once, on the first lookup. */
export function charsetFamily<C extends NamedCharset>(loadCharsets: () => Promise<readonly C[]>, build: (charset: C) => Codec): (javaName: string) => Promise<Codec | null> {
  let lookup: Promise<(javaName: string) => Codec | null> | undefined;
  return async (javaName) => (await (lookup ??= loadCharsets().then((charsets) => charsetLookup(charsets, build))))(javaName);
}

/** In an encoding table (UTF-16 unit -> byte or pair): no byte for this character. */
export const NO_CODE = 0xffff;

/**
 * The code of the character at `i` of `text` in `encoding`, and the index of the next one. A
 * surrogate pair is one character and, like an unpaired surrogate, has no code (NO_CODE): these
 * charsets have nothing outside the BMP, and Java writes one replacement for it.
 */
export function codeAt(text: string, i: number, encoding: Uint16Array | Uint32Array): [code: number, next: number] {
  const unit = text.charCodeAt(i);
  if (unit < 0xd800 || unit > 0xdfff) return [encoding[unit] as number, i + 1];
  const next = text.charCodeAt(i + 1);
  return [NO_CODE, unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? i + 2 : i + 1];
}
