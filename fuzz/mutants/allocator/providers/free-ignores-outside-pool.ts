// Planted bug `free-ignores-outside-pool` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/free-ignores-outside-pool.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('free-ignores-outside-pool');
