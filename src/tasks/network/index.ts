/** The network task family (tasks.md §8): ICAP, FTP and the five S3 tasks. */
import type { TaskImplementation } from '../task.js';
import { ftpTask } from './ftp-task.js';
import { icapTask } from './icap-task.js';
import { s3Tasks } from './s3-tasks.js';

export const networkTasks: Record<string, TaskImplementation> = {
  ICAP: icapTask,
  FTP: ftpTask,
  ...s3Tasks,
};
