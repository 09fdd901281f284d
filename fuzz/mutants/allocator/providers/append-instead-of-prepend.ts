// Planted bug `append-instead-of-prepend` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/append-instead-of-prepend.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('append-instead-of-prepend');
