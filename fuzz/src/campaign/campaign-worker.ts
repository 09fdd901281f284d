// Worker-thread entry of the campaign pool: runs the jobs it is sent, one at a time, and reports
// each run's command count so the main thread's progress line stays live.
import { parentPort } from 'node:worker_threads';
import { runCampaignJob, type CampaignJob } from './campaign-job.js';

const port = parentPort;
if (port === null) throw new Error('campaign-worker.ts runs only as a worker thread');
port.on('message', (job: CampaignJob) => {
  try {
    const result = runCampaignJob(job, (executed) => port.postMessage({ kind: 'run', executed }));
    port.postMessage({ kind: 'done', result });
  } catch (error) {
    port.postMessage({ kind: 'error', message: (error as Error).stack ?? String(error) });
  }
});
