// Planted bug `no-merge-when-short` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/no-merge-when-short.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('no-merge-when-short');
