/** A keystore or truststore that cannot be used; the message names the file and what was expected. */
export class TlsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TlsConfigError';
  }
}
