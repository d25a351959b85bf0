/**
 * Layering (issue 20 item 6, docs/decisions): src/server composes the REST interface (src/http) and
 * may import it; src/http never imports src/server, type imports and dynamic imports included, so
 * the two folders have no import cycle. A failure names each offending import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli-helpers.js';

const SRC = path.join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative module a file names: `from '...'`, `import '...'`, `import('...')`, `export ... from '...'`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.[^'"]+)['"]/gm)) found.push(path.resolve(path.dirname(file), m[1] as string));
  return found;
}

/** Top folder of `abs` under src/ (`server`, `http`, ...). */
const folderOf = (abs: string): string => path.relative(SRC, abs).split(path.sep)[0] as string;

/** `from -> to` imports between two top folders. */
function edges(from: string, to: string): string[] {
  return sourceFiles(path.join(SRC, from)).flatMap((f) =>
    importsOf(f).filter((target) => folderOf(target) === to).map((target) => `${path.relative(ROOT, f)} -> ${path.relative(ROOT, target)}`));
}

describe('layering of src/server and src/http', () => {
  it('src/http imports nothing from src/server', () => {
    expect(edges('http', 'server')).toEqual([]);
  });

  it('the check sees the imports it looks for (src/server does import src/http)', () => {
    expect(edges('server', 'http').length).toBeGreaterThan(0);
  });
});
