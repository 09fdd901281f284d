// Planted bug `nested-begin-resets` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/nested-begin-resets.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('nested-begin-resets');
