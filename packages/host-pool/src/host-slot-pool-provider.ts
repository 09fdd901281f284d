import { HostSlotPool } from './host-slot-pool.js';
import type { HostPoolProvider, HostSlotPoolConfig } from './types.js';

/** The reference host pool as a provider, the way kvfuzz's models load alternatives. */
export const hostSlotPoolProvider: HostPoolProvider = {
  name: 'reference',
  create: (config: HostSlotPoolConfig) => new HostSlotPool(config),
};
