/**
 * Starts components in the order they were added and stops them in reverse order. If one fails to
 * start, the ones already started are stopped (reverse order) before the error is rethrown, so a
 * failed start leaves nothing listening and no database connection open.
 */
import type { Logger } from 'pino';
import type { Component } from './component.js';

export class ComponentStartError extends Error {
  constructor(
    readonly component: string,
    cause: unknown,
  ) {
    super(`${component}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ComponentStartError';
  }
}

type State = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

export class Lifecycle {
  private readonly components: Component[] = [];
  private readonly started: Component[] = [];
  private state: State = 'new';
  private stopping: Promise<void> | undefined;

  constructor(private readonly log: Logger) {}

  /** Adds a component; only before `start()`. */
  add(component: Component): this {
    if (this.state !== 'new') throw new Error(`cannot add component ${component.name} after start`);
    this.components.push(component);
    return this;
  }

  get names(): string[] {
    return this.components.map((c) => c.name);
  }

  /** Banner lines of the started components, in start order. */
  describeStarted(): string[] {
    return this.started.flatMap((c) => c.describe?.() ?? []);
  }

  get isRunning(): boolean {
    return this.state === 'running';
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`lifecycle already ${this.state}`);
    this.state = 'starting';
    for (const component of this.components) {
      if (this.state !== 'starting') break; // a stop() arrived during start
      try {
        this.log.debug({ component: component.name }, 'starting component');
        await component.start();
        if (this.state !== 'starting') {
          // stop() ran while this one was starting: it missed it, so release it here.
          await component.stop().catch((err: unknown) => this.log.error({ component: component.name, err: describe(err) }, 'component failed to stop cleanly'));
          break;
        }
        this.started.push(component);
        this.log.info({ component: component.name }, 'component started');
      } catch (err) {
        this.log.error({ component: component.name, err: describe(err) }, 'component failed to start');
        await this.stop();
        throw new ComponentStartError(component.name, err);
      }
    }
    if (this.state === 'starting') this.state = 'running';
  }

  /** Stops every started component in reverse order; never throws; idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    this.state = 'stopping';
    while (this.started.length > 0) {
      const component = this.started.pop() as Component;
      try {
        await component.stop();
        this.log.info({ component: component.name }, 'component stopped');
      } catch (err) {
        // Keep going: the remaining components still hold resources that must be released.
        this.log.error({ component: component.name, err: describe(err) }, 'component failed to stop cleanly');
      }
    }
    this.state = 'stopped';
  }
}

/** Error text for logs: the message only (stacks of user errors are noise; secrets never in them). */
export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
