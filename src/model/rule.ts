/** Transfer modes (config.md §6.3); 0 is never valid in a rule. */
export enum TransferMode {
  UNKNOWNMODE = 0,
  SENDMODE = 1,
  RECVMODE = 2,
  SENDMD5MODE = 3,
  RECVMD5MODE = 4,
  SENDTHROUGHMODE = 5,
  RECVTHROUGHMODE = 6,
  SENDMD5THROUGHMODE = 7,
  RECVMD5THROUGHMODE = 8,
}

/** True when the requester sends the file in this mode. */
export function isSendMode(mode: TransferMode): boolean {
  return mode === TransferMode.SENDMODE || mode === TransferMode.SENDMD5MODE || mode === TransferMode.SENDTHROUGHMODE || mode === TransferMode.SENDMD5THROUGHMODE;
}

/** True when every block carries a digest in this mode. */
export function isMd5Mode(mode: TransferMode): boolean {
  return mode === TransferMode.SENDMD5MODE || mode === TransferMode.RECVMD5MODE || mode === TransferMode.SENDMD5THROUGHMODE || mode === TransferMode.RECVMD5THROUGHMODE;
}

/** True for the "through" (streaming, no file on one side) modes. */
export function isThroughMode(mode: TransferMode): boolean {
  return mode >= TransferMode.SENDTHROUGHMODE && mode <= TransferMode.RECVMD5THROUGHMODE;
}

/** The `-md5` client option maps 1->3, 2->4, 5->7, 6->8; other modes are unchanged. */
export function withMd5(mode: TransferMode): TransferMode {
  switch (mode) {
    case TransferMode.SENDMODE: return TransferMode.SENDMD5MODE;
    case TransferMode.RECVMODE: return TransferMode.RECVMD5MODE;
    case TransferMode.SENDTHROUGHMODE: return TransferMode.SENDMD5THROUGHMODE;
    case TransferMode.RECVTHROUGHMODE: return TransferMode.RECVMD5THROUGHMODE;
    default: return mode;
  }
}

/** One task of a rule's task list. Only type, path and delay survive a database round trip. */
export interface RuleTask {
  /** Upper-case task type name (LOG, COPY, EXEC, ...). */
  type: string;
  /** The task argument, with `#...#` substitutions still in it. */
  path: string;
  /** Time limit in milliseconds (meaning depends on the task type). */
  delay: number;
  /** Informational only, from rule files; not stored in the database. */
  rank?: number;
  comment?: string;
}

/** A transfer rule (table RULES, rule files). Paths are virtual (`/in`) or empty for the global one. */
export interface Rule {
  idRule: string;
  /** Allowed partner ids; empty means every partner. Compared case-insensitively. */
  hostIds: string[];
  mode: TransferMode;
  recvPath: string;
  sendPath: string;
  archivePath: string;
  workPath: string;
  rPreTasks: RuleTask[];
  rPostTasks: RuleTask[];
  rErrorTasks: RuleTask[];
  sPreTasks: RuleTask[];
  sPostTasks: RuleTask[];
  sErrorTasks: RuleTask[];
  updatedInfo: number;
}

/** True when `hostId` may use the rule (empty list = all; case-insensitive). */
export function ruleAllowsHost(rule: Rule, hostId: string): boolean {
  if (rule.hostIds.length === 0) return true;
  const wanted = hostId.toLowerCase();
  return rule.hostIds.some((h) => h.toLowerCase() === wanted);
}
