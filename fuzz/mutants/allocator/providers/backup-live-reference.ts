// Planted bug `backup-live-reference` as a module provider: `pnpm validate fuzz/mutants/allocator/providers/backup-live-reference.ts` must report a violation.
import { allocatorMutantProvider } from '../catalogue.js';

export default allocatorMutantProvider('backup-live-reference');
