import type { ContractRule } from './contract-rule.js';

/** The host pool contract's rules (CONTRACT.md, "The host pool contract"), in document order. */
export const kHostRules = [
  { id: 'H1', title: 'create accepts every valid configuration; size = (floor(sizeTokens / pageSize) + 1) × pageSize and pageSize is the configured one', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'H2', title: 'create refuses a pageSize that is not a positive multiple of dcpSize, a dcpSize that is not a positive integer, and a negative or fractional sizeTokens', level: 'MUST refuse', checks: 'both', mode: 'both' },
  { id: 'H3', title: 'alloc returns an Int32Array or null, availableSize and free integers, and every slot is an integer in int32 range', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'H4', title: 'alloc(n) returns n distinct slots in 0 … size − 1, none of them held', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'H5', title: 'alloc returns null only when fewer than n slots are free, and a null changes nothing', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'H6', title: 'availableSize() is the number of free slots, slots given back included, and size once every holding is given back', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'H7', title: 'free(indices) of held slots frees each of them and returns how many it freed', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'H8', title: 'clear() makes every slot free', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'H9', title: 'a call that is refused changes nothing: availableSize() is as before it', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'H10', title: 'a call whose arguments keep the contract is not refused', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'H11', title: 'in exact mode, alloc answers as the reference: the same slots, its contiguous-run preference included', level: 'MUST', checks: 'both', mode: 'exact' },
  { id: 'H12', title: 'alloc of a negative size or a size that is not a page multiple is refused', level: 'MUST refuse', checks: 'both', mode: 'both' },
  { id: 'H13', title: 'free of a slot that is not allocated — never handed out, given back already, named twice in the call, negative or outside the pool — is refused, nothing freed', level: 'MUST refuse', checks: 'on', mode: 'both' },
] as const satisfies readonly ContractRule[];

export type HostRuleId = (typeof kHostRules)[number]['id'];
