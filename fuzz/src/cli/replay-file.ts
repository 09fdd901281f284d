import { findTarget, type FuzzTarget } from '../fuzz-targets.js';
import { loadRegression, replayRegression, type LoadedRegression } from '../regressions/replay-regression.js';
import { describeThrown } from '../text/describe-thrown.js';
import { inertLine, inertText } from '../text/inert-text.js';

/** What fast-check says when a recorded path leads nowhere: the model's arbitraries changed since. */
const kWrongPath = /Unable to replay, got (wrong|invalid) path/;

/** Longest printed field of the file (characters); a path can be long, and people read the start. */
const kFieldCharsMax = 200;

/** The header and program as a person reads them; every text taken from the file is made inert. */
function describeRegression(r: LoadedRegression): string {
  const commands = r.decoded.commands.map((c) => `    ${inertLine(String(c), 10_000)},`);
  return [
    `${r.target}: ${inertLine(r.errorName, kFieldCharsMax)} — ${inertText(r.message).replace(/\n/g, '\n    ')}`,
    `  found ${inertLine(r.foundAt, kFieldCharsMax)}; seed ${r.seed}, path "${inertLine(r.path, kFieldCharsMax)}"`,
    `  geometry: ${inertLine(JSON.stringify(r.decoded.geometry), 1000)}`,
    `  program (${commands.length} commands):`,
    ...commands,
  ].join('\n');
}

/**
 * What the recorded seed and path do today, as one line of information: they replay the original
 * batch only while the model's arbitraries are unchanged, so a path that no longer leads anywhere
 * is said, never thrown.
 */
async function seedReplayNote(target: FuzzTarget, r: LoadedRegression): Promise<string> {
  try {
    const { report } = await target.run({ seed: r.seed, path: r.path, numRuns: 1 }, null);
    const f = report.failure;
    if (f === null) return 'the recorded seed and path run clean';
    return `the recorded seed and path still fail: ${inertLine(`${f.errorName}: ${f.message}`, kFieldCharsMax)}`;
  } catch (error) {
    if (error instanceof Error && kWrongPath.test(error.message)) return "the recorded seed and path no longer reach a run (the model's arbitraries changed since it was stored)";
    return `the recorded seed and path could not be replayed: ${describeThrown(error)}`;
  }
}

/**
 * `pnpm fuzz --replay FILE`: prints a stored failure's program (rebuilt from its data, never from
 * the printed `program`) and replays it against the reference, then tries the recorded seed and
 * path for information only.
 *
 * @param write - where the report goes (stdout).
 * @returns 1 while the program still fails, 0 once it runs clean (the bug is fixed).
 * @throws BadInput when the file is not a valid regression (the CLI prints one line, exit 2).
 */
export async function replayFile(file: string, write: (text: string) => void): Promise<number> {
  const r = loadRegression(file);
  const target = findTarget(r.target) as FuzzTarget;
  write(`${describeRegression(r)}\n`);
  let status = 0;
  try {
    await replayRegression(r);
    write('\nfixed: the program runs clean\n');
  } catch (error) {
    write(`\nstill fails: ${describeThrown(error)}\n`);
    status = 1;
  }
  write(`${await seedReplayNote(target, r)}\n`);
  return status;
}
