/**
 * Usage lines of the client's transfer, information and business commands (cli.md §3, §5), kept
 * apart from their code so that printing the usage loads none of the network or database layers.
 */
import type { CommandHelp } from '../usage.js';

export const CLIENT_TRANSFER_HELP: CommandHelp[] = [
  { synopsis: 'send TRANSFER-OPTIONS', summary: 'transfer a file now and wait for the end (exit: ordinal of the final status)' },
  { synopsis: 'asend TRANSFER-OPTIONS', summary: 'submit a transfer to the server through the database (the server starts it)' },
  { synopsis: 'msend TRANSFER-OPTIONS', summary: 'several transfers, one after the other (comma lists, wildcards)' },
  { synopsis: 'masend TRANSFER-OPTIONS [-client]', summary: 'submit several transfers (comma lists, wildcards; -client asks the partner for remote names)' },
  { synopsis: 'transfer -id ID -to|-from HOST [-stop|-cancel|-restart [-start T|-delay D]]', summary: 'show a transfer, or stop, cancel or restart it' },
  { synopsis: 'getinfo -to HOST -rule RULE [-file F] [-exist|-detail|-list|-mlsx]', summary: 'information on remote files' },
  { synopsis: 'getinfo -to HOST -id ID [-reqto|-reqfrom]', summary: "the partner's record of a transfer" },
  { synopsis: 'message -to HOST -msg TEXT', summary: 'connectivity and authentication test' },
  { synopsis: 'business -to HOST -arg ARG [-class C]', summary: 'ask a partner to run a business task (also: BusinessRequest)' },
];

export const CLIENT_OPTIONS_HELP = `Transfer options (case-sensitive):
  -to HOST[,HOST...] -rule RULE -file PATH[,PATH...]   a new transfer (lists: msend/masend;
                                                       * ? wildcards, § stands for *)
  -to HOST -id ID            an existing transfer of the local database (restart)
  -info TEXT                 file information sent to the partner (default noinfo)
  -md5                       per-block digest mode
  -block BYTES               block size (default limit/blocksize, at least 100)
  -start yyyyMMddHHmmss | -delay +MS|EPOCHMS   planned start
  -nolog                     delete the local record after a direct transfer
  -logWarn | -notlogWarn     level of the final log line
  -nofollow                  do not append a follow id to the information
Output (every transfer, information and business command): -json (default), -xml, -csv,
  -property, -quiet.`;
