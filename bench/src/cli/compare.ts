/** Entry point of `pnpm bench:compare`; see {@link compareMain}. Run `pnpm bench:compare --help`. */
import { kProcessIo } from './cli-io.js';
import { compareMain } from './compare-cli.js';

process.exitCode = compareMain(process.argv.slice(2), kProcessIo);
