// Planted bug `segment-unaligned-start` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/segment-unaligned-start.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('segment-unaligned-start');
