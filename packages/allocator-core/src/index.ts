export type {
  AllocatorConfig,
  AllocatorProvider,
  DecodeBatch,
  ExtendBatch,
  FreeSegment,
  PageAllocator,
  ResolvedAllocatorConfig,
} from './types.js';
export {
  ArgumentError,
  ConfigError,
  DoubleAllocError,
  DoubleFreeError,
  FreeGroupError,
  InvariantError,
  KvfuzzError,
  LastLocError,
  SegmentError,
  SlotRangeError,
  StateError,
} from './errors.js';
export { kDcpSizes, kKernelPageSizeMax, kSizeTokensMax, resolveAllocatorConfig } from './config.js';
export { booleanField, positiveIntegerField } from './config-fields.js';
export { ceilToPage, divCeil, divExact, divFloor, firstSlotOfPage, floorToPage, pageOfSlot } from './page-math.js';
export { countExtendPages, countExtendTokens, planExtend, planExtendInto } from './plan-extend.js';
export type { ExtendPlan } from './plan-extend.js';
export { countDecodePages, planDecode, planDecodeInto } from './plan-decode.js';
export type { DecodePlan } from './plan-decode.js';
export { BaseAllocator, kPageFree, kPageHeld, kPageQueued, kPageReserved } from './base-allocator.js';
export { PagedAllocator } from './paged-allocator.js';
export { TokenAllocator } from './token-allocator.js';
export { createAllocator, referenceProvider } from './create-allocator.js';
export { ReferenceAllocator } from './reference/reference-allocator.js';
export { createReferenceAllocator, plainReferenceProvider } from './reference/create-reference-allocator.js';
export { filterLocalIndices, localToLogical, logicalToLocal, widenedPageSize } from './dcp.js';
