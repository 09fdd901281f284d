export { acquireDevice } from './acquire-device.js';
export type { GpuContext } from './acquire-device.js';
export { GpuBatchError, kAdapterFix, NoAdapterError } from './errors.js';
export { GpuAllocKernels, GpuPageState } from './gpu-alloc-kernels.js';
export type { GpuFreeResult, GpuPlan } from './gpu-alloc-kernels.js';
export { kBatchSizeMax, kOutputSlotsMax, kWorkgroupSize } from './kernel-limits.js';
export type { KernelBug } from './wgsl-sources.js';
export { fillSource, freeSource, scanSource } from './wgsl-sources.js';
