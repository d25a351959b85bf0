// The schema version the original keeps in HOSTCONFIG.OTHERS (database.md §8.1):
// `<root><version>3.1.0</version>...</root>`; a missing row or element means 1.1.0.

/** The schema version written by releases 3.1.0 to 3.6.2, and by us. */
export const CURRENT_SCHEMA_VERSION = '3.1.0';
/** What a missing version means. */
export const DEFAULT_SCHEMA_VERSION = '1.1.0';

/** The `<version>` of an OTHERS value, or 1.1.0 when absent or unreadable. */
export function versionFromOthers(others: string | null | undefined): string {
  const m = /<version>\s*([^<]*?)\s*<\/version>/.exec(others ?? '');
  return m?.[1] ? m[1] : DEFAULT_SCHEMA_VERSION;
}

/**
 * Compares two versions on major, minor, patch numerically; a `-suffix` on the patch is ignored
 * and missing parts count as 0. Returns <0, 0 or >0.
 */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string): number[] => v.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < 3; i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/**
 * OTHERS with its version set to `version`, only ever raising it (database.md §8.1). Other
 * children are kept; an unparsable value is treated as an empty `<root/>` (§4.5).
 */
export function othersWithVersion(others: string | null | undefined, version: string): string {
  const text = (others ?? '').trim();
  if (!/^<root\s*>[\s\S]*<\/root\s*>$/.test(text) && !/^<root\s*\/>$/.test(text)) return `<root><version>${version}</version></root>`;
  if (/<version>[\s\S]*?<\/version>/.test(text)) {
    if (compareVersions(versionFromOthers(text), version) >= 0) return text;
    return text.replace(/<version>[\s\S]*?<\/version>/, `<version>${version}</version>`);
  }
  if (/^<root\s*\/>$/.test(text)) return `<root><version>${version}</version></root>`;
  return text.replace(/^<root\s*>/, `<root><version>${version}</version>`);
}
