// Planted bug `available-counts-queued` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/available-counts-queued.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('available-counts-queued');
