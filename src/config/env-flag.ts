/**
 * The on/off environment settings that stand for the original's JVM properties or for svc's own
 * switches (`SVC_R66_*`, docs/compatibility.md and docs/cli.md): one reading, one error message.
 */

/** A bad value of an environment setting; the message names the variable. */
export class EnvSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvSettingError';
  }
}

/**
 * `name` read as 1/0 (also true/false, yes/no, on/off, any case); undefined when unset or empty.
 * Any other value throws, by default an EnvSettingError, else what `fail` makes of the message.
 */
export function envFlag(env: NodeJS.ProcessEnv, name: string, fail: (message: string) => Error = (m) => new EnvSettingError(m)): boolean | undefined {
  const v = env[name]?.trim();
  if (v === undefined || v === '') return undefined;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw fail(`${name} must be 1 or 0 (true or false), not ${JSON.stringify(v)}`);
}
