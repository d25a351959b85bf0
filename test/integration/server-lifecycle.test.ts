import { describe, expect, it } from 'vitest';
import type { Component } from '../../src/server/component.js';
import { ComponentStartError, Lifecycle } from '../../src/server/lifecycle.js';
import { silentLogger } from '../../src/server/logger.js';

function recorder(events: string[], name: string, failStart = false): Component {
  return {
    name,
    start: async () => {
      events.push(`start ${name}`);
      if (failStart) throw new Error(`${name} refused`);
    },
    stop: async () => void events.push(`stop ${name}`),
  };
}

describe('Lifecycle', () => {
  it('starts in order and stops in reverse, once', async () => {
    const events: string[] = [];
    const l = new Lifecycle(silentLogger()).add(recorder(events, 'a')).add(recorder(events, 'b')).add(recorder(events, 'c'));
    await l.start();
    expect(l.isRunning).toBe(true);
    await Promise.all([l.stop(), l.stop()]);
    expect(events).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  });

  it('stops what started when a component fails, and names it', async () => {
    const events: string[] = [];
    const l = new Lifecycle(silentLogger()).add(recorder(events, 'db')).add(recorder(events, 'listener', true)).add(recorder(events, 'http'));
    await expect(l.start()).rejects.toThrow(ComponentStartError);
    await expect(new Lifecycle(silentLogger()).add(recorder([], 'listener', true)).start()).rejects.toThrow('listener: listener refused');
    expect(events).toEqual(['start db', 'start listener', 'stop db']);
  });

  it('keeps stopping when one component fails to stop', async () => {
    const events: string[] = [];
    const bad: Component = { name: 'bad', start: async () => undefined, stop: async () => { throw new Error('boom'); } };
    const l = new Lifecycle(silentLogger()).add(recorder(events, 'a')).add(bad);
    await l.start();
    await l.stop();
    expect(events).toEqual(['start a', 'stop a']);
  });

  it('refuses components added after start', async () => {
    const l = new Lifecycle(silentLogger());
    await l.start();
    expect(() => l.add(recorder([], 'late'))).toThrow(/after start/);
  });
});
