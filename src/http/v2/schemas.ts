/** Answer schemas of v2 objects (rest-v2.md §10), used only to describe answers in the OpenAPI document. */
import { z } from 'zod';

export const transferSchema = z.object({
  id: z.int().describe('transfer id (signed 64-bit, exact)'), globalStep: z.string(), globalLastStep: z.string(), step: z.int(),
  rank: z.int(), status: z.string(), stepStatus: z.string(), errorCode: z.int(), errorMessage: z.string(), originalFilename: z.string(),
  filename: z.string(), ruleName: z.string(), blockSize: z.int(), fileInfo: z.string().nullable(), transferInfo: z.string(),
  start: z.string(), stop: z.string(), requested: z.string(), requester: z.string(), retrieve: z.boolean(),
});

export const hostSchema = z.object({
  name: z.string(), address: z.string(), port: z.int(), password: z.string(), isSSL: z.boolean(), isClient: z.boolean(),
  isAdmin: z.boolean(), isActive: z.boolean(), isProxy: z.boolean(),
});

const taskOut = z.object({ type: z.string(), arguments: z.string(), delay: z.int() });
export const ruleSchema = z.object({
  name: z.string(), hostIds: z.array(z.string()), mode: z.string(), recvPath: z.string(), sendPath: z.string(),
  archivePath: z.string(), workPath: z.string(), rPreTasks: z.array(taskOut), rPostTasks: z.array(taskOut), rErrorTasks: z.array(taskOut),
  sPreTasks: z.array(taskOut), sPostTasks: z.array(taskOut), sErrorTasks: z.array(taskOut),
});

export const hostConfigSchema = z.object({
  business: z.array(z.string()),
  roles: z.array(z.object({ hostName: z.string(), roleList: z.array(z.string()) })),
  aliases: z.array(z.object({ hostName: z.string(), aliasList: z.array(z.string()) })),
  others: z.string(), versionR66: z.string().optional(), versionBin: z.string().optional(),
});

export const limitsSchema = z.object({
  downGlobalLimit: z.int(), upGlobalLimit: z.int(), downSessionLimit: z.int(), upSessionLimit: z.int(), delayLimit: z.int(),
});

export const errorListSchema = z.object({ errors: z.array(z.object({ message: z.string(), errorCode: z.int() })) });
