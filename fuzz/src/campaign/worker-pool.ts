import { Worker } from 'node:worker_threads';
import { runCampaignJob, kCloseMessage, type CampaignJob, type CampaignJobResult } from './campaign-job.js';

/** How long a worker asked to close may take to exit before it is terminated (it is idle by then). */
const kWorkerExitMsMax = 5_000;

/**
 * Runs campaign jobs on `size` worker threads, or in this thread when `size` is 1, one job per
 * thread at a time. A thread running the gpu-kernels target makes its own WebGPU device on first
 * use and keeps it (Dawn is safe in worker threads, and terminating them is too).
 */
export class WorkerPool {
  private readonly idle: Worker[] = [];
  private readonly waiting: ((worker: Worker) => void)[] = [];
  private readonly workers: Worker[] = [];
  // In this thread, jobs run one after another: a GPU job awaits, and the kill table starts every job at once.
  private inThread: Promise<unknown> = Promise.resolve();

  constructor(readonly size: number) {
    if (size <= 1) return;
    // Workers do not inherit the TypeScript loader: the boot module registers it, then loads the entry.
    const boot = new URL('./campaign-worker-boot.mjs', import.meta.url);
    for (let i = 0; i < size; i++) {
      const worker = new Worker(boot, { execArgv: process.execArgv.filter((a) => a.startsWith('--conditions')) });
      this.workers.push(worker);
      this.idle.push(worker);
    }
  }

  /** Runs a job on the next free worker; `onRun` hears each finished run. */
  async run(job: CampaignJob, onRun: (executed: number) => void): Promise<CampaignJobResult> {
    if (this.workers.length === 0) {
      const result = this.inThread.then(() => runCampaignJob(job, onRun));
      this.inThread = result.catch(() => undefined);
      return result;
    }
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

  /**
   * Lets every worker finish and exit on its own; one that has not exited within
   * `kWorkerExitMsMax` is terminated. Terminating a thread that holds a WebGPU device can abort the
   * process (Dawn's pending event callback throws into the dying thread), so workers are asked, not killed.
   */
  async close(): Promise<void> {
    await Promise.all(
      this.workers.map(async (worker) => {
        const exited = new Promise<'exited'>((resolve) => worker.once('exit', () => resolve('exited')));
        worker.postMessage(kCloseMessage);
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), kWorkerExitMsMax)));
        if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
        clearTimeout(timer);
      }),
    );
  }
}
