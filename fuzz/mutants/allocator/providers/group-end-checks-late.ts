// Planted bug `group-end-checks-late` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/group-end-checks-late.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('group-end-checks-late');
