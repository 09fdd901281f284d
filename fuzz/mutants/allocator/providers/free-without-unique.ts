// Planted bug `free-without-unique` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/free-without-unique.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('free-without-unique');
