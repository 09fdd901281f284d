/**
 * `pnpm bench:floor`: the least any free check could cost the host pool's alloc/free cycle (see
 * `probes/host-free-floor.ts`), point by point, beside the gate's margin.
 * Exit 0 after a measurement (it is evidence, not a gate); 2: bad input.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { detectPinning } from '../harness/pinning.js';
import { floorPointName, kFloorPoints, measureFloor, type FloorPoint, type FloorResult, type FloorSettings } from '../probes/host-free-floor.js';
import { kGeometriesQuick } from '../harness/geometries.js';
import { formatInterval, formatNs, formatTable } from '../report/format-table.js';
import { kMarginDefault } from '../stats/verdict.js';
import { integerFlag, parseCliArgs } from './cli-args.js';
import type { CliIo } from './cli-io.js';
import { ProgressLine } from './progress-line.js';
import { UsageError } from './usage-error.js';

/** The JSON's `schema`: bump on any change a reader would notice. */
export const kFloorSchema = 'kvfuzz-bench-floor/1';
const kRoundsDefault = 20;
const kRoundsMax = 1000;
const kRepsDefault = 21;
const kRepsMax = 10_000;
const kWarmupCalls = 300;
const kSeed = 0x666c6f72;
/** `--quick`: the fresh pool at the two ends of the geometries, 5 rounds of 11. */
const kQuickPoints: readonly FloorPoint[] = kGeometriesQuick.map((g) => ({ ...g, state: 'fresh' }));

const kHelp = `Usage: pnpm bench:floor [--rounds N] [--reps N] [--quick] [--json FILE] [--no-pin]

The floor under the host pool's free check. A checked free must read every slot it is given; the
unchecked free copies them with a memcpy no check can ride. This times, in one process on the
unchecked pool, the bench's alloc/free cycle and the cheapest pass that reads the cycle's freed
slots once (WebAssembly, sixteen slots a step, nothing done with them), in shuffled blocks, and
bootstraps 1 + read / cycle over the rounds. No check that reads the slots can cost less: where
this floor's interval lies above 1 + ${kMarginDefault}, the host pool's gate cannot pass.

Options:
  --rounds N   rounds per point (default ${kRoundsDefault}); each times a block of cycles and one of passes
  --reps N     timed calls per block, whose median is the block's sample (default ${kRepsDefault})
  --quick      the fresh pool at pages 1 and 512, 5 rounds of 11 calls
  --json FILE  also write every point as JSON (schema ${kFloorSchema})
  --no-pin     do not pin the process to cpu 0 (taskset)
  -h, --help   this text

Exit status: 0 after a measurement, 2 bad input.`;

interface FloorCliOptions {
  readonly settings: FloorSettings;
  readonly points: readonly FloorPoint[];
  readonly json: string | null;
  readonly pin: boolean;
}

function parseCli(argv: readonly string[], baseDir: string): FloorCliOptions | 'help' {
  const parsed = parseCliArgs({
    args: [...argv],
    options: {
      rounds: { type: 'string' },
      reps: { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: false,
  });
  const v = parsed.values;
  if (v.help) return 'help';
  if (v.json === '') throw new UsageError('--json needs a file name');
  const quick = v.quick;
  const settings: FloorSettings = {
    rounds: integerFlag('--rounds', v.rounds, 1, kRoundsMax) ?? (quick ? 5 : kRoundsDefault),
    reps: integerFlag('--reps', v.reps, 1, kRepsMax) ?? (quick ? 11 : kRepsDefault),
    warmup: kWarmupCalls,
    margin: kMarginDefault,
    seed: kSeed,
  };
  return { settings, points: quick ? kQuickPoints : kFloorPoints, json: v.json === undefined ? null : resolve(baseDir, v.json), pin: !v['no-pin'] };
}

/** Pins this process (every thread) to cpu 0 when taskset allows; returns how it runs. */
function pinSelf(pin: boolean): string {
  const probe = detectPinning(pin ? 0 : null);
  if (!probe.used) return probe.note;
  // taskset -a -p: every thread of the running process, V8's compiler threads included.
  const r = spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  return r.status === 0 ? 'pinned: this process ran under taskset -a -p -c 0' : `not pinned: taskset -a -p failed with status ${String(r.status)}`;
}

/** Runs the CLI; returns the exit status. */
export function floorMain(argv: readonly string[], io: CliIo): number {
  let options;
  try {
    options = parseCli(argv, io.baseDir);
    if (options === 'help') {
      io.out(`${kHelp}\n`);
      return 0;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`pnpm bench:floor: ${error.message}\n(see pnpm bench:floor --help)\n`);
      return 2;
    }
    throw error;
  }
  const pinning = pinSelf(options.pin);
  const progress = new ProgressLine(io.err, io.tty);
  const started = Date.now();
  const results: FloorResult[] = [];
  const { points, settings } = options;
  points.forEach((point, k) => {
    results.push(
      measureFloor(point, settings, (round) =>
        progress.update(() => `[point ${k + 1}/${points.length}] ${floorPointName(point)}  round ${round}/${settings.rounds}  ${((Date.now() - started) / 1000).toFixed(0)}s`),
      ),
    );
  });
  progress.done();
  const rows = results.map((r) => [r.name, formatNs(r.cycleNs), formatNs(r.readNs), `${r.readNsPerSlot.toFixed(3)} ns`, formatInterval(r.ratio, r.ciLow, r.ciHigh), r.verdict]);
  io.out(`${formatTable(['bench', 'unchecked cycle', 'read pass', 'a slot', 'floor [95% CI]', 'floor vs margin'], rows)}\n\n`);
  const above = results.filter((r) => r.verdict === 'fail');
  io.out(`${pinning}\n`);
  io.out(
    `floor: ${results.length} points, ${settings.rounds} rounds of ${settings.reps} calls, margin ${(settings.margin * 100).toFixed(0)}% — ` +
      (above.length === 0
        ? 'no floor lies above the margin: reading the slots alone does not decide these gates\n'
        : `${above.length} above it: no check that reads the freed slots can pass there (${above.map((r) => r.name).join(', ')})\n`),
  );
  if (options.json !== null) {
    mkdirSync(dirname(options.json), { recursive: true });
    const doc = { schema: kFloorSchema, margin: settings.margin, rounds: settings.rounds, reps: settings.reps, pinning, node: process.version, results };
    writeFileSync(options.json, `${JSON.stringify(doc, null, 2)}\n`);
    io.out(`wrote ${options.json}\n`);
  }
  return 0;
}
