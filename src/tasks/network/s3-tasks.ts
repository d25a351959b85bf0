/**
 * S3GET, S3GETDELETE, S3PUT, S3PUTR66DELETE, S3DELETE (tasks.md §8). Pipeline B then the option
 * parser; every failure, argument errors included, completes the task with code `E` (the
 * original can leave S3DELETE's result unset and block the chain: never here). The secret key is
 * scrubbed from every message.
 */
import { access, constants } from 'node:fs/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { TransferMode } from '../../model/rule.js';
import { repointCurrentFile, type TaskContext } from '../context.js';
import { resolveTaskPath } from '../paths.js';
import { failure, success, type TaskImplementation, type TaskInvocation, type TaskResult } from '../task.js';
import { formatTransferInfo, parseTransferInfo } from '../transfer-info.js';
import { deleteObject, downloadObject, ensureBucket, objectTags, s3Client, s3ErrorText, setObjectTags, uploadObject } from './s3-client.js';
import { parseS3Options, S3ArgumentError, type S3Options, type S3TaskType } from './s3-options.js';
import { scrub } from './scrub.js';
import { taskWords } from './words.js';

/** A failed S3 step: its message is already scrubbed by the runner below. */
class S3StepError extends Error {}

interface S3Run {
  call: TaskInvocation;
  o: S3Options;
  client: S3Client;
}

/** Send-through modes become their normal variant once the file exists (S3GET in a pre-task). */
const OUT_OF_THROUGH: Partial<Record<TransferMode, TransferMode>> = {
  [TransferMode.SENDTHROUGHMODE]: TransferMode.SENDMODE,
  [TransferMode.SENDMD5THROUGHMODE]: TransferMode.SENDMD5MODE,
};

async function step<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw new S3StepError(`${what}: ${s3ErrorText(err)}`);
  }
}

/** S3GET: object -> file, tags, current file repointed (as RENAME), out of send-through mode. */
async function get({ call, o, client }: S3Run): Promise<string> {
  const ctx = call.ctx;
  const key = o.sourceName as string;
  const path = resolveTaskPath(ctx, o.file as string);
  await step(`download of ${o.bucket}/${key} to ${path} failed`, () => downloadObject(client, o.bucket, key, path));
  try {
    await access(path, constants.R_OK);
  } catch {
    throw new S3StepError(`downloaded file ${path} is not readable`);
  }
  if (o.getTags !== undefined && ctx.transfer) {
    const tags = await step(`reading the tags of ${o.bucket}/${key} failed`, () => objectTags(client, o.bucket, key, o.getTags ?? null));
    if (Object.keys(tags).length > 0) {
      // As the original does (its documentation says "added"): the tag map replaces the JSON map.
      ctx.transfer.transferInfo = formatTransferInfo({ text: parseTransferInfo(ctx.transfer.transferInfo).text, map: tags });
    }
  }
  repointCurrentFile(ctx, path);
  const normal = ctx.transfer ? OUT_OF_THROUGH[ctx.transfer.mode] : undefined;
  if (ctx.transfer && normal !== undefined) {
    ctx.transfer.mode = normal;
    ctx.logger.info(`${call.type}: the file exists now: transfer switched from send-through to mode ${normal}`);
  }
  return path;
}

/** S3PUT: bucket created when missing, current file uploaded, tags set (object removed if that fails). */
async function put({ call, o, client }: S3Run): Promise<string> {
  const file = call.ctx.currentFile;
  if (file === null) throw new S3StepError('there is no current file to upload');
  const key = o.targetName as string;
  if (await step(`bucket ${o.bucket} cannot be checked or created`, () => ensureBucket(client, o.bucket))) call.ctx.logger.info(`${call.type}: bucket ${o.bucket} created`);
  await step(`upload of ${file} to ${o.bucket}/${key} failed`, () => uploadObject(client, o.bucket, key, file));
  if (o.setTags !== undefined) {
    const tags = o.setTags;
    try {
      await setObjectTags(client, o.bucket, key, tags);
    } catch (err) {
      await deleteObject(client, o.bucket, key).catch(() => undefined);
      throw new S3StepError(`tagging ${o.bucket}/${key} failed, object deleted again: ${s3ErrorText(err)}`);
    }
  }
  return `${o.bucket}/${key}`;
}

async function remove({ o, client }: S3Run): Promise<string> {
  const key = o.sourceName as string;
  await step(`deletion of ${o.bucket}/${key} failed`, () => deleteObject(client, o.bucket, key));
  return `${o.bucket}/${key}`;
}

type Action = (run: S3Run) => Promise<TaskResult>;

const ACTIONS: Record<S3TaskType, Action> = {
  S3GET: async (run) => success(await get(run)),
  S3GETDELETE: async (run) => {
    const path = await get(run);
    await remove(run);
    return success(path);
  },
  S3PUT: async (run) => success(await put(run)),
  S3PUTR66DELETE: async (run) => {
    await put(run);
    // The DELETE task's result is this task's result.
    const del = run.call.registry.get('DELETE');
    if (!del) throw new S3StepError('the DELETE task is not available');
    return del.run({ ...run.call, type: 'DELETE', argument: '' });
  },
  S3DELETE: async (run) => success(await remove(run)),
};

function s3Task(type: S3TaskType): TaskImplementation {
  return {
    async run(call): Promise<TaskResult> {
      const ctx: TaskContext = call.ctx;
      const words = taskWords(call.type, call.argument, ctx, 1, '-URL, -accessKey, -secretKey, -bucketName ...');
      if (!Array.isArray(words)) return words;
      let o: S3Options;
      try {
        o = parseS3Options(type, words);
      } catch (err) {
        if (err instanceof S3ArgumentError) return failure(`${call.type}: ${err.message}`);
        throw err;
      }
      const client = s3Client(o);
      ctx.engine.keepAlive?.();
      try {
        const result = await ACTIONS[type]({ call, o, client });
        if (result.kind === 'success') ctx.logger.info(`${call.type}: ${result.data ?? 'done'}`);
        return result;
      } catch (err) {
        return failure(`${call.type}: ${scrub(err instanceof Error ? err.message : String(err), [o.secretKey])}`);
      } finally {
        client.destroy();
        ctx.engine.keepAlive?.();
      }
    },
  };
}

export const s3Tasks: Record<S3TaskType, TaskImplementation> = {
  S3GET: s3Task('S3GET'),
  S3GETDELETE: s3Task('S3GETDELETE'),
  S3PUT: s3Task('S3PUT'),
  S3PUTR66DELETE: s3Task('S3PUTR66DELETE'),
  S3DELETE: s3Task('S3DELETE'),
};
