/** Entry point of `pnpm bench`; see {@link benchMain}. Run `pnpm bench --help`. */
import { benchMain } from './bench-cli.js';
import { kProcessIo } from './cli-io.js';

process.exitCode = await benchMain(process.argv.slice(2), kProcessIo);
