// The reference host pool as a module provider: `pnpm validate --pool host fuzz/examples/reference-host-pool.ts`.
export { hostSlotPoolProvider as default } from '@kvfuzz/host-pool';
