import type { KernelBug } from '@kvfuzz/gpu-kernels';

/**
 * A planted GPU kernel bug the lock-step model must catch. The bugs live in `@kvfuzz/gpu-kernels`
 * itself (`new GpuAllocKernels(context, bug)`), so `name` is the kernel bug's name.
 */
export interface GpuKernelMutant {
  /** Stable name, used by `--mutant` and the kill table: the `KernelBug` it plants. */
  readonly name: Exclude<KernelBug, 'none'>;
  readonly mechanism: string;
}

/** Every kernel mutant: the extend layout bugs, the page count, the capacity check, then the batch free. */
export const kGpuKernelMutants: readonly GpuKernelMutant[] = [
  { name: 'cursor-inclusive', mechanism: 'GPU extend: the page cursor sums new pages over j <= i' },
  { name: 'tail-first-page', mechanism: "GPU extend: the tail lands on the first, not the last, page of the request's range" },
  { name: 'part1-unbounded', mechanism: "GPU extend: part 1 runs to the page end past seq, over the next requests' slots" },
  { name: 'page-count-floor', mechanism: 'GPU extend: new pages counted with floor, in the scan and the short check' },
  { name: 'capacity-unchecked', mechanism: 'no capacity check before the GPU kernel: it reads free pages that do not exist instead of returning null' },
  { name: 'free-unchecked', mechanism: 'the checked GPU batch free runs the unchecked kernel: pages named twice or not held are freed' },
];

export function findGpuKernelMutant(name: string): GpuKernelMutant | undefined {
  return kGpuKernelMutants.find((m) => m.name === name);
}
