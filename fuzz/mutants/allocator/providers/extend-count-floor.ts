// Planted bug `extend-count-floor` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/extend-count-floor.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('extend-count-floor');
