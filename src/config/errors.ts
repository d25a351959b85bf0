/** Where in a configuration file a problem was found (every part optional). */
export interface ConfigErrorLocation {
  /** The file being read or written. */
  file?: string;
  /** The element path, e.g. `server/serverpasswd`. */
  element?: string;
  /** 1-based line of the element when the parser knows it. */
  line?: number;
}

/**
 * A problem with a configuration file, a key file or a password file that the user can fix.
 * The message names the file, the element (and line) and what was expected; it never contains a
 * secret (key bytes, clear or encrypted passwords), so it is safe to print and to log.
 */
export class ConfigError extends Error {
  readonly file: string | undefined;
  readonly element: string | undefined;
  readonly line: number | undefined;
  /** What was expected / what went wrong, without the location prefix. */
  readonly detail: string;

  constructor(detail: string, location: ConfigErrorLocation = {}) {
    super(formatMessage(detail, location));
    this.name = 'ConfigError';
    this.detail = detail;
    this.file = location.file;
    this.element = location.element;
    this.line = location.line;
  }

  /** The same problem placed at a (more precise) location; keeps known parts not overridden. */
  at(location: ConfigErrorLocation): ConfigError {
    return new ConfigError(this.detail, {
      file: location.file ?? this.file,
      element: location.element ?? this.element,
      line: location.line ?? this.line,
    });
  }
}

function formatMessage(detail: string, loc: ConfigErrorLocation): string {
  const parts: string[] = [];
  if (loc.file !== undefined) parts.push(loc.file + (loc.line !== undefined ? `:${loc.line}` : ''));
  if (loc.element !== undefined) parts.push(`<${loc.element}>`);
  return parts.length === 0 ? detail : `${parts.join(' ')}: ${detail}`;
}

/** Wraps any error thrown by `fn` that is not already a ConfigError, naming `file`. */
export function describeIoError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT': return 'file not found';
    case 'EACCES':
    case 'EPERM': return 'permission denied';
    case 'EISDIR': return 'is a directory, expected a file';
    case 'ENOTDIR': return 'a parent of the path is not a directory';
    default: return code !== undefined ? `cannot be read (${code})` : 'cannot be read';
  }
}
