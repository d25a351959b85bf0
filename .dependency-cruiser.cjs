/**
 * The folder layers of src/ (design.md §1, docs/architecture.md, decision 0040), checked by
 * `npm run lint`: a folder imports from itself, from a folder of a lower layer, or from a folder of
 * its own layer that SAME_LAYER allows. Type-only imports count (tsPreCompilationDeps). Since the
 * allowances inside a layer form no cycle (checked below when this file loads), no import cycle
 * can join two top-level folders.
 */
/* global module */
'use strict';

/** Bottom to top. */
const LAYERS = [
  ['model', 'protocol', 'fs', 'config'],
  ['store'],
  ['net', 'tasks'],
  ['transfer'],
  ['operations'],
  ['monitor', 'cluster', 'watch', 'client', 'admin'],
  ['http', 'web'],
  ['server', 'cli'],
];

/** Imports allowed between two folders of one layer (each list: what the folder may import). */
const SAME_LAYER = {
  protocol: ['model'],
  fs: ['model'],
  config: ['model', 'fs'],
  cluster: ['monitor'],
  admin: ['monitor'],
  web: ['http'],
  cli: ['server'],
};

const FOLDERS = LAYERS.flat();
const layerOf = new Map(LAYERS.flatMap((folders, i) => folders.map((f) => [f, i])));

// The allowances must not close a cycle inside a layer (a depth-first search over SAME_LAYER).
for (const [folder, allowed] of Object.entries(SAME_LAYER)) {
  for (const other of allowed) {
    if (layerOf.get(folder) !== layerOf.get(other)) throw new Error(`.dependency-cruiser.cjs: SAME_LAYER ${folder} -> ${other} crosses layers`);
  }
}
const reaches = (from, to, seen = new Set()) =>
  (SAME_LAYER[from] ?? []).some((n) => n === to || (!seen.has(n) && (seen.add(n), reaches(n, to, seen))));
for (const folder of Object.keys(SAME_LAYER)) {
  if (reaches(folder, folder)) throw new Error(`.dependency-cruiser.cjs: SAME_LAYER allowances make a cycle through ${folder}`);
}

/** The folders `folder` must not import: higher layers, and its own layer's unless allowed. */
function forbiddenFor(folder) {
  const layer = layerOf.get(folder);
  return FOLDERS.filter((f) => f !== folder && (layerOf.get(f) > layer || (layerOf.get(f) === layer && !(SAME_LAYER[folder] ?? []).includes(f))));
}

const layerRules = FOLDERS.filter((folder) => forbiddenFor(folder).length > 0).map((folder) => ({
  name: `layers-${folder}`,
  comment: `src/${folder} (layer ${layerOf.get(folder) + 1}) imports only from its own or lower layers (docs/architecture.md); a lower layer that needs a higher one takes an interface or a callback from src/server.`,
  severity: 'error',
  from: { path: `^src/${folder}/` },
  to: { path: `^src/(${forbiddenFor(folder).join('|')})/` },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'layers-unknown-folder',
      comment: 'Every file of src/ lives in a folder of the layers: a new top-level folder is added to LAYERS in .dependency-cruiser.cjs and to docs/architecture.md.',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(${FOLDERS.join('|')})/` },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports tie the folders' designs too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
