import type { ContractRule } from './contract-rule.js';

/** The allocator contract's rules (CONTRACT.md, "The allocator contract"), in document order. */
export const kAllocatorRules = [
  { id: 'A1', title: 'create accepts every valid configuration and reports pageSize = kernelPageSize × dcpSize and numPages = sizeTokens / pageSize', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A2', title: 'create refuses a sizeTokens, kernelPageSize or dcpSize that is not a positive integer, and a sizeTokens that dcpSize does not divide', level: 'MUST refuse', checks: 'both', mode: 'both' },
  { id: 'A3', title: 'a sizeTokens that is not a page multiple may be refused; if accepted, numPages = floor(sizeTokens / pageSize) and no page past it is handed out', level: 'MAY', checks: 'both', mode: 'both' },
  { id: 'A4', title: 'a dcpSize that is not a power of two may be refused; if accepted, the geometry follows A1', level: 'MAY', checks: 'both', mode: 'both' },
  { id: 'A5', title: 'allocations return an Int32Array or null, availableSize an integer, and every slot is an integer in int32 range', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A6', title: 'every page handed out is in 1 … numPages, free when handed out, and handed out at most once per call', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A7', title: 'alloc(n) returns n slots of whole pages, each page as its slots in order', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A8', title: 'allocExtend returns Σ(seq − prefix) slots, request after request, in row page structure', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A9', title: 'allocDecode returns one slot per request: lastLoc + 1 inside its page, or the first slot of a new page', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A10', title: 'an allocation returns null only when fewer pages are free than it needs, and a null changes nothing', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A11', title: 'availableSize() is pageSize × the free pages, staged pages included, pages given back in an open group excluded', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A12', title: 'free and freeSegments give back the whole page of every slot they name, each page once per call', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A13', title: 'inside a free group nothing given back is available until freeGroupEnd, which gives back every page the group named, as named at the call', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A14', title: 'restoreState(backupState()) returns the free state to the snapshot', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A15', title: 'clear() makes every page free, with nothing staged and no open group', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A16', title: 'once every holding is given back, every page is free, was given back once per hand-out, and the whole pool allocates again', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A17', title: 'a call that is refused changes nothing: availableSize() and backupState() are as before it', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A18', title: 'a call whose arguments keep the contract is not refused', level: 'MUST', checks: 'both', mode: 'both' },
  { id: 'A19', title: 'in exact mode, every call answers as the reference: the same page ids in the same order, the same nulls and availableSize', level: 'MUST', checks: 'both', mode: 'exact' },
  { id: 'A20', title: 'alloc of a negative size or a size that is not a page multiple is refused', level: 'MUST refuse', checks: 'both', mode: 'both' },
  { id: 'A21', title: 'allocExtend and allocDecode with arrays of different lengths, or an extend with seq < prefix, are refused', level: 'MUST refuse', checks: 'both', mode: 'both' },
  { id: 'A22', title: 'freeSegments with an unaligned start, or a segment that shares a page with the previous one, is refused', level: 'MUST refuse', checks: 'both', mode: 'both' },
  { id: 'A23', title: 'freeGroupBegin inside an open group, and freeGroupEnd without one, are refused', level: 'MUST refuse', checks: 'both', mode: 'both' },
  { id: 'A24', title: 'giving back a slot of a page that is not held — page 0, a free page, one given back already, a slot outside the pool — is refused, nothing released', level: 'MUST refuse', checks: 'on', mode: 'both' },
  { id: 'A25', title: 'an extend or decode whose lastLoc does not fit its prefix is refused', level: 'MUST refuse', checks: 'on', mode: 'both' },
] as const satisfies readonly ContractRule[];

export type AllocatorRuleId = (typeof kAllocatorRules)[number]['id'];
