// Planted bug `capacity-after-slicing` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/capacity-after-slicing.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('capacity-after-slicing');
