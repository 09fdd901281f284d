// Planted bug `clear-from-page-zero` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/clear-from-page-zero.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('clear-from-page-zero');
