// Planted bug `size-ceil-hidden` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/size-ceil-hidden.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('size-ceil-hidden');
