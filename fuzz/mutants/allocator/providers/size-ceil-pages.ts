// Planted bug `size-ceil-pages` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/size-ceil-pages.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('size-ceil-pages');
