// Planted bug `group-keeps-views` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/group-keeps-views.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('group-keeps-views');
