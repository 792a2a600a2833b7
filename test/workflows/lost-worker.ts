// A `shipments` worker that dies in the middle of a purchase's capture, run as a process of its own
// by test/workflows/purchase.test.ts, which SIGKILLs it: the capture (a local activity) "commits" and
// the worker never completes the workflow task that ran it. It prints the capture's input, then hangs.
//   node --import tsx test/workflows/lost-worker.ts <server address> <task queue>
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';

const [address, taskQueue] = process.argv.slice(2);
Runtime.install({ logger: new DefaultLogger('ERROR') });
const connection = await NativeConnection.connect({ address });
const worker = await Worker.create({
  connection,
  taskQueue,
  workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)),
  activities: {
    beginPurchase: async () => ({ ok: true as const, carrier: 'acme', gross: 1200, currency: 'GBP' }),
    completePurchase: async (p: unknown) => {
      process.stdout.write(`committed ${JSON.stringify(p)}\n`);
      return await new Promise<never>(() => undefined);
    },
  },
});
process.stdout.write('ready\n');
await worker.run();
