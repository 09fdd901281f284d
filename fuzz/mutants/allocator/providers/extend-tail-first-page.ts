// Planted bug `extend-tail-first-page` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/extend-tail-first-page.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('extend-tail-first-page');
