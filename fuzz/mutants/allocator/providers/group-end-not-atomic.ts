// Planted bug `group-end-not-atomic` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/group-end-not-atomic.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('group-end-not-atomic');
