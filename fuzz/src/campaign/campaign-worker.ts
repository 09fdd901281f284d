// Worker-thread entry of the campaign pool: runs the jobs it is sent, one at a time, and reports
// each run's command count so the main thread's progress line stays live. A gpu-kernels job makes
// this thread's WebGPU device on first use (one per worker) and keeps it for later jobs.
import { parentPort } from 'node:worker_threads';
import { kCloseMessage, runCampaignJob, type CampaignJob } from './campaign-job.js';

const port = parentPort;
if (port === null) throw new Error('campaign-worker.ts runs only as a worker thread');
port.on('message', (job: CampaignJob | typeof kCloseMessage) => {
  if (job === kCloseMessage) {
    port.close();
    return;
  }
  const fail = (error: unknown): void => port.postMessage({ kind: 'error', message: (error as Error).stack ?? String(error) });
  try {
    const result = runCampaignJob(job, (executed) => port.postMessage({ kind: 'run', executed }));
    // A GPU job answers with a promise; the synchronous targets answer at once.
    if (result instanceof Promise) result.then((done) => port.postMessage({ kind: 'done', result: done }), fail);
    else port.postMessage({ kind: 'done', result });
  } catch (error) {
    fail(error);
  }
});
