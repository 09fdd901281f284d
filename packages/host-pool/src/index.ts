export type { HostPool, HostPoolProvider, HostSlotPoolConfig, HostSlotPoolInspection, ResolvedHostSlotPoolConfig } from './types.js';
export { HostDoubleAllocError, HostDoubleFreeError } from './errors.js';
export { kHostPageSizeMax, kHostSizeTokensMax, kSlotEndMax, resolveHostSlotPoolConfig } from './config.js';
export { HostSlotPool } from './host-slot-pool.js';
export { HostSlotPoolSnapshot } from './host-slot-pool-snapshot.js';
export { hostSlotPoolProvider } from './host-slot-pool-provider.js';
