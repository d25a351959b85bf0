/**
 * Errors the CLI reports to a person: a one-line message (never a stack trace) and the exit code
 * the documented command uses for that situation.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Wrong command-line arguments. The exit code is decided by the command that catches it. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
