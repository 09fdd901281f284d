// Planted bug `extend-part1-unbounded` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/extend-part1-unbounded.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('extend-part1-unbounded');
