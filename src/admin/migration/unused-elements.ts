/**
 * Elements of the original's XML files that this host reads past without acting on them, found in
 * the file's text (the typed configuration no longer knows they were there). The migration report
 * names each one present so nothing the Java host had configured disappears in silence.
 */
const UNUSED: ReadonlyArray<{ element: string; path: string; why: string }> = [
  { element: 'usefastmd5', path: 'limit/usefastmd5', why: 'obsolete in the original too: digests use Node crypto' },
  { element: 'fastmd5', path: 'limit/fastmd5', why: 'obsolete in the original too' },
  { element: 'nofastmd5', path: 'limit/nofastmd5', why: 'obsolete in the original too' },
  { element: 'checkversion', path: 'limit/checkversion', why: 'the version exchange always runs (partners that do not answer it are still accepted)' },
  { element: 'businessfactorynetwork', path: 'server/businessfactorynetwork', why: 'ignored by the original loader as well' },
  { element: 'businessids', path: 'business/businessids', why: 'the element read is businessid' },
  { element: 'restsignkey', path: 'rest/restsignkey', why: 'the element read is restsigkey' },
];

/** One line per unused element present in `text` (an XML file's content). */
export function unusedElements(text: string, fileLabel: string): string[] {
  const withoutComments = text.replace(/<!--[\s\S]*?-->/g, '');
  const out: string[] = [];
  for (const u of UNUSED) {
    if (new RegExp(`<${u.element}(\\s[^>]*)?/?>`, 'i').test(withoutComments)) out.push(`${fileLabel} <${u.path}> is not acted on: ${u.why}`);
  }
  return out;
}
