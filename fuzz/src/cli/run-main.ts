import { BadInput } from '../bad-input.js';
import { describeThrown } from '../text/describe-thrown.js';
import { inertLine, inertText } from '../text/inert-text.js';
import { UsageError } from './usage-error.js';

/**
 * Runs a CLI's `main` and sets the exit status, so that every path ends with one line: bad usage
 * and bad input exit 2 with their message; anything unexpected exits 2 with one line naming it
 * (its stack only under `--debug`). Exit 1 stays reserved for a violation or failure that `main`
 * itself reports.
 *
 * @param command - how the CLI is invoked, for messages (`pnpm fuzz`).
 */
export async function runMain(command: string, main: (argv: readonly string[]) => Promise<number>, argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const debug = argv.includes('--debug');
  try {
    process.exitCode = await main(argv);
  } catch (error) {
    // Node's parseArgs explains over several lines; the usage line stays one.
    if (error instanceof UsageError) process.stderr.write(`${command}: ${inertLine(error.message.replace(/\s*\n\s*/g, ' '), 400)} (see ${command} --help)\n`);
    else if (error instanceof BadInput) process.stderr.write(`${command}: ${inertLine(error.message, 400)}\n`);
    else {
      process.stderr.write(`${command}: internal error: ${describeThrown(error)}${debug ? '' : ' (--debug shows where)'}\n`);
      if (debug && error instanceof Error && error.stack !== undefined) process.stderr.write(`${inertText(error.stack)}\n`);
    }
    if (debug && (error instanceof UsageError || error instanceof BadInput) && error.stack !== undefined) process.stderr.write(`${inertText(error.stack)}\n`);
    process.exitCode = 2;
  }
}
