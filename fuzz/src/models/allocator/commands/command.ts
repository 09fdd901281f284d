import type fc from 'fast-check';
import type { AllocatorModel, AllocatorReal } from '../allocator-model-state.js';

/** Every allocator model command: immutable drawn data, a pure `check`, `run`, and `toString` as code. */
export type AllocatorCommand = fc.Command<AllocatorModel, AllocatorReal>;
