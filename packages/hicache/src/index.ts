export type { CopyOp, HostSlots } from './hicache-controller.js';
export { HiCacheController } from './hicache-controller.js';
export { HiRadixTree } from './hi-radix-tree.js';
export type { HiRadixCacheConfig, HostMatch, WritePolicy } from './hi-radix-cache.js';
export { HiRadixCache, kLoadBackThresholdTokens, kWritePolicies } from './hi-radix-cache.js';
