/** Entry point of `pnpm bench:history`; see {@link historyMain}. Run `pnpm bench:history --help`. */
import { kProcessIo } from '../cli/cli-io.js';
import { historyMain } from './history-cli.js';

process.exitCode = historyMain(process.argv.slice(2), kProcessIo);
