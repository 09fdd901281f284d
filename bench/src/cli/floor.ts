/** Entry point of `pnpm bench:floor`; see {@link floorMain}. Run `pnpm bench:floor --help`. */
import { kProcessIo } from './cli-io.js';
import { floorMain } from './floor-cli.js';

process.exitCode = floorMain(process.argv.slice(2), kProcessIo);
