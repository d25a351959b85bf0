import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { PRODUCT_VERSION } from '../../src/model/product.js';

describe('product identity', () => {
  it('matches package.json version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(PRODUCT_VERSION).toBe(pkg.version);
  });
});
