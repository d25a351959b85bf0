/** Runs one task of a type on a context, through the real registry. */
import { createTaskRegistry } from '../../src/tasks/index.js';
import type { TaskContext } from '../../src/tasks/context.js';
import type { TaskRegistry } from '../../src/tasks/registry.js';
import type { TaskResult } from '../../src/tasks/task.js';
import { normalizeSpaces } from '../../src/tasks/substitution.js';

export async function runOne(type: string, argument: string, ctx: TaskContext, delay = 0, registry: TaskRegistry = createTaskRegistry()): Promise<TaskResult> {
  const impl = registry.get(type);
  if (!impl) throw new Error(`no task ${type}`);
  return impl.run({ type, argument: normalizeSpaces(argument), delay, ctx, registry });
}
