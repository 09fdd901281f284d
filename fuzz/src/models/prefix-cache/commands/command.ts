import type fc from 'fast-check';
import type { PrefixModel, PrefixReal } from '../prefix-model-state.js';

/** Every lifecycle command: immutable drawn data, a pure `check`, `run`, and `toString` as code. */
export type PrefixCommand = fc.Command<PrefixModel, PrefixReal>;
