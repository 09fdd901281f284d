/**
 * Typed errors of `@kvfuzz/gpu-kernels`.
 *
 * @packageDocumentation
 */
import { KvfuzzError } from '@kvfuzz/allocator-core';

/** The fix for a machine without a WebGPU adapter, spelled out in the error. */
export const kAdapterFix =
  'install the Vulkan software driver Dawn accepts (mesa-vulkan-drivers ≥ 25 from bookworm-backports: ' +
  '`apt-get install -t bookworm-backports mesa-vulkan-drivers libvulkan1`; `bash ci/setup.sh` does it when run as root)';

/** No WebGPU adapter could be created (no Vulkan driver, or one Dawn rejects). */
export class NoAdapterError extends KvfuzzError {
  constructor(detail: string) {
    super('NoAdapterError', 'KVFUZZ_NO_ADAPTER', `No WebGPU adapter: ${detail}. To fix: ${kAdapterFix}.`);
  }
}

/** A batch too large for one dispatch (the kernels' limits are named constants in kernel-limits.ts). */
export class GpuBatchError extends KvfuzzError {
  constructor(message: string) {
    super('GpuBatchError', 'KVFUZZ_GPU_BATCH', message);
  }
}
