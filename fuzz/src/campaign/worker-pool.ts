import { Worker } from 'node:worker_threads';
import { runCampaignJob, type CampaignJob, type CampaignJobResult } from './campaign-job.js';

/** Runs campaign jobs on `size` worker threads, or in this thread when `size` is 1. */
export class WorkerPool {
  private readonly idle: Worker[] = [];
  private readonly waiting: ((worker: Worker) => void)[] = [];
  private readonly workers: Worker[] = [];

  constructor(readonly size: number) {
    if (size <= 1) return;
    // Workers do not inherit the TypeScript loader: each registers it before loading the entry.
    const tsx = import.meta.resolve('tsx/esm/api');
    const entry = new URL('./campaign-worker.ts', import.meta.url).href;
    const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
    for (let i = 0; i < size; i++) {
      const worker = new Worker(boot, { eval: true, execArgv: process.execArgv.filter((a) => a.startsWith('--conditions')) });
      this.workers.push(worker);
      this.idle.push(worker);
    }
  }

  /** Runs a job on the next free worker; `onRun` hears each finished run. */
  async run(job: CampaignJob, onRun: (executed: number) => void): Promise<CampaignJobResult> {
    if (this.workers.length === 0) return runCampaignJob(job, onRun);
    const worker = this.idle.pop() ?? (await new Promise<Worker>((resolve) => this.waiting.push(resolve)));
    try {
      return await new Promise<CampaignJobResult>((resolve, reject) => {
        const onMessage = (m: { kind: string; executed?: number; result?: CampaignJobResult; message?: string }): void => {
          if (m.kind === 'run') onRun(m.executed ?? 0);
          else {
            worker.off('message', onMessage);
            worker.off('error', reject);
            if (m.kind === 'done') resolve(m.result as CampaignJobResult);
            else reject(new Error(`campaign worker failed: ${m.message}`));
          }
        };
        worker.on('message', onMessage);
        worker.once('error', reject);
        worker.postMessage(job);
      });
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next(worker);
      else this.idle.push(worker);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
