/**
 * `svc-r66client [HOSTID] icaptest -file <path|EICARTEST> -to <host> ...` (cli.md §3.12, icap.md §5):
 * one ICAP scan with the options of the ICAP task; no client.xml or database is used. The exit
 * code is the scan status (0 clean, 1 bad arguments, 2 protocol, 3 network, 4 rejected, 5 rejected
 * and the post action failed). `-sendOnError` has no effect here.
 */
import { IcapArgumentError, ICAP_USAGE, parseIcapOptions, type IcapOptions } from '../../tasks/network/icap-options.js';
import { icapScan } from '../../tasks/network/icap-scan.js';
import type { ClientCommandContext } from './session.js';

export async function icaptestCommand(ctx: ClientCommandContext, argv: readonly string[]): Promise<number> {
  const { io } = ctx;
  let o: IcapOptions;
  try {
    o = parseIcapOptions(argv);
  } catch (err) {
    if (!(err instanceof IcapArgumentError)) throw err;
    io.err(`icaptest: ${err.message}\n`);
    io.out(`usage: svc-r66client [HOSTID] ${ICAP_USAGE}`);
    return 1;
  }
  if (o.sendOnError) io.err('icaptest: -sendOnError has no effect here (only in the ICAP task of a rule)\n');
  // Without -logger only warnings and errors are printed; with it, what the scan lets through.
  const verbose = o.logger !== undefined;
  const result = await icapScan(o, (level, msg) => {
    if (verbose || level === 'warn' || level === 'error') io.err(`${level.toUpperCase()} ${msg}\n`);
  });
  io.out(`icaptest: status ${result.status}: ${result.message}\n`);
  return result.status;
}
