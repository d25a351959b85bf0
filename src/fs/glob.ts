/**
 * The file-name wildcards a partner may use in a requested name (`*` any run of characters, `?`
 * one character), matched against one path segment. The CLI's `§` stands for `*` before it gets here.
 */

/** True when the name holds a wildcard character. */
export function hasWildcard(name: string): boolean {
  return name.includes('*') || name.includes('?');
}

/** A RegExp matching a whole segment against the wildcard pattern; everything else is literal. */
export function wildcardToRegExp(pattern: string): RegExp {
  let source = '';
  for (const ch of pattern) {
    if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u');
}
