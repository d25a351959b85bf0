/** A server's business registry on a temporary home, for ExecBusinessTask runs of the network tasks. */
import { join } from 'node:path';
import pino from 'pino';
import type { DirectoryConfig } from '../../../src/config/types.js';
import { BusinessRegistry, type BusinessOutcome } from '../../../src/server/business.js';
import { createTaskRegistry } from '../../../src/tasks/index.js';

/** Runs `<TYPE> <argument>` as the original's ExecBusinessTask would, on a server whose home is `home`. */
export function execBusiness(home: string, typeAndArgument: string): Promise<BusinessOutcome> {
  const directories = {
    serverHome: home,
    virtual: { in: '/in', out: '/out', arch: '/arch', work: '/work', conf: '/conf' },
    in: join(home, 'in'),
    out: join(home, 'out'),
    arch: join(home, 'arch'),
    work: join(home, 'work'),
  } as DirectoryConfig;
  const registry = new BusinessRegistry({ hostId: 'hostb', directories, tasks: createTaskRegistry(), logger: pino({ level: 'silent' }), roleOf: async () => 0, defaultTimeoutMs: 30_000 });
  return registry.run({ className: 'org.waarp.openr66.context.task.ExecBusinessTask', arguments: typeAndArgument, extraArguments: null, delayMs: 0, user: 'hostc' });
}
