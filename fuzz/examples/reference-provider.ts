// The reference implementation as a module provider: `pnpm validate fuzz/examples/reference-provider.ts`.
export { referenceProvider as default } from '@kvfuzz/allocator-core';
