// Planted bug `group-keeps-reps` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/group-keeps-reps.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('group-keeps-reps');
