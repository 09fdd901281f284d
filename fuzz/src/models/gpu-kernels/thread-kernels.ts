import { acquireDevice, type GpuContext, GpuAllocKernels, type KernelBug } from '@kvfuzz/gpu-kernels';

// One device per thread (the main thread, or each campaign worker), made on first use and kept
// for the thread's life: acquireDevice() keeps Dawn's instance alive for the process, and the
// kernels' compiled pipelines are reused by every run on this thread.
let context: Promise<GpuContext> | null = null;
const kernelsByBug = new Map<KernelBug, GpuAllocKernels>();

/**
 * This thread's GPU kernels, with a planted bug or without (`'none'`).
 *
 * @throws NoAdapterError naming the fix when there is no WebGPU adapter (never a skip).
 */
export async function threadKernels(bug: KernelBug = 'none'): Promise<GpuAllocKernels> {
  const found = kernelsByBug.get(bug);
  if (found !== undefined) return found;
  context ??= acquireDevice();
  const kernels = new GpuAllocKernels(await context, bug);
  kernelsByBug.set(bug, kernels);
  return kernels;
}

/** The adapter this thread runs on ("mesa / software / llvmpipe …" on lavapipe), for reports. */
export async function threadAdapterDescription(): Promise<string> {
  context ??= acquireDevice();
  return (await context).adapterDescription;
}
