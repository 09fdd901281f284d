import type fc from 'fast-check';
import type { DataCommand } from '../../command-data.js';
import type { AllocatorModel, AllocatorReal } from '../allocator-model-state.js';

/**
 * Every allocator model command: immutable drawn data, a pure `check`, `run`, `toData` (its
 * builder in `program.ts` and the arguments), and `toString`, the same call printed for people.
 */
export type AllocatorCommand = fc.Command<AllocatorModel, AllocatorReal> & DataCommand;
