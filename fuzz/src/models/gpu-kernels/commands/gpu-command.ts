import type fc from 'fast-check';
import type { GpuKernelsModel, GpuKernelsReal } from '../gpu-model-state.js';

/** Every lock-step command: immutable drawn data, a pure `check`, an awaited `run`, and `toString` as code. */
export type GpuKernelsCommand = fc.AsyncCommand<GpuKernelsModel, GpuKernelsReal>;
