// Planted bug `extend-cursor-inclusive` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/extend-cursor-inclusive.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('extend-cursor-inclusive');
