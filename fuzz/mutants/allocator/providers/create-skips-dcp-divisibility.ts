// Planted bug `create-skips-dcp-divisibility` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/create-skips-dcp-divisibility.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('create-skips-dcp-divisibility');
