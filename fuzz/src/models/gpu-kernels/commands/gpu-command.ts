import type fc from 'fast-check';
import type { DataCommand } from '../../command-data.js';
import type { GpuKernelsModel, GpuKernelsReal } from '../gpu-model-state.js';

/**
 * Every lock-step command: immutable drawn data, a pure `check`, an awaited `run`, `toData` (its
 * builder in `gpu-program.ts` and the arguments), and `toString`, the same call printed for people.
 */
export type GpuKernelsCommand = fc.AsyncCommand<GpuKernelsModel, GpuKernelsReal> & DataCommand;
