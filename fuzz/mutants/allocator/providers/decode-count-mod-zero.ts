// Planted bug `decode-count-mod-zero` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/decode-count-mod-zero.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('decode-count-mod-zero');
