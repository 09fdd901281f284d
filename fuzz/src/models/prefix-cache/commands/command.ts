import type fc from 'fast-check';
import type { DataCommand } from '../../command-data.js';
import type { PrefixModel, PrefixReal } from '../prefix-model-state.js';

/**
 * Every lifecycle command: immutable drawn data, a pure `check`, `run`, `toData` (its builder in
 * `prefix-program.ts` and the arguments), and `toString`, the same call printed for people.
 */
export type PrefixCommand = fc.Command<PrefixModel, PrefixReal> & DataCommand;
