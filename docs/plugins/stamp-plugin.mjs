// Example svc-r66 task plug-in (see docs/plugins/README.md).
//
// Load it by naming this file in server.xml:
//   <extendTaskFactory><extendedtaskfactories>/opt/svc/plugins/stamp-plugin.mjs</extendedtaskfactories></extendTaskFactory>
// It brings:
//   - an EXECJAVA plug-in, class name "com.example.svc.StampTask":
//       <task><type>EXECJAVA</type><path>com.example.svc.StampTask #TRUEFULLPATH# done</path><delay>10000</delay></task>
//     appends the words after the class name, and the time, to the file "<current file>.stamp".
//   - a new task type STAMP doing the same with the rule argument.
import { appendFile } from 'node:fs/promises';

async function stamp(file, text) {
  await appendFile(`${file}.stamp`, `${new Date().toISOString()} ${text}\n`);
}

export const execJava = {
  // A factory: called once per task run, like the original's no-argument constructor.
  'com.example.svc.StampTask': () => ({
    async run(call) {
      if (!call.ctx.currentFile) return 2; // failure: nothing to stamp
      await stamp(call.ctx.currentFile, call.args);
      return 0; // 0 success, 1 success with a warning, other failure
    },
  }),
};

export const taskTypes = {
  STAMP: {
    async run({ argument, ctx }) {
      if (!ctx.currentFile) return { kind: 'failure', code: { ordinal: 8, char: 'E', name: 'ExternalOp', meaning: 'pre/post/error task in error' }, message: 'STAMP: no current file' };
      await stamp(ctx.currentFile, argument);
      return { kind: 'success' };
    },
  },
};
