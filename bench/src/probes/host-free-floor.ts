/**
 * The floor under the host pool's free check: how much an alloc/free cycle would slow down if
 * each free only read every slot it is given once more, doing nothing with it.
 *
 * Why it bounds every design: a free that checks must look at each slot it is given (an array from
 * the caller proves nothing), while the unchecked free copies the slots into the release list with
 * `TypedArray.set`, a memcpy that JavaScript cannot fuse a check into (a JavaScript loop that
 * copies and checks costs 1–2 ns a slot against the memcpy's ~0.06). So the checked free reads the
 * slots at least once more than the unchecked one, and the fastest read there is here
 * ({@link ReadPass}: sixteen slots a step in WebAssembly, OR-ed and thrown away). A check also has
 * to compare the slots and flip their flags, and the hand-out side has its own work: the real
 * ratio is above this floor, never below it.
 *
 * Measured in one process, on the unchecked pool: each round times a block of cycles and a block
 * of read passes, in a shuffled order, and takes `1 + read / cycle` of the blocks' medians; the
 * rounds' ratios are bootstrapped as the gate's are. When even the floor's interval lies above
 * `1 + margin`, no check that reads the slots can pass the gate on this cycle.
 */
import { HostSlotPool } from '@kvfuzz/host-pool';
import { expandName } from '../harness/bench-pair.js';
import { addressOf } from '../harness/bench-files.js';
import { hostCycleWorkload, kChunks, kHostCycleFile, kHostCycleName, kHostCyclePoints, stateCycles, type HostCyclePoint } from '../host-pool/cycle-workload.js';
import { judgeRatios, type RatioJudgement } from '../stats/verdict.js';
import { median } from '../stats/robust-center.js';
import { seededRandom, shuffleInPlace } from '../stats/seeded-random.js';
import { ReadPass } from './read-pass-wasm.js';

/** One point the probe measures: a pool state and a geometry, as the bench's host pool case names them. */
export type FloorPoint = HostCyclePoint;

export interface FloorSettings {
  /** Rounds per point (each a block of cycles and a block of read passes). */
  readonly rounds: number;
  /** Timed calls per block; the block's median is its sample. */
  readonly reps: number;
  /** Calls of each kind before the first round, for V8 to optimize them. */
  readonly warmup: number;
  readonly margin: number;
  /** Shuffles the blocks' order. */
  readonly seed: number;
}

export interface FloorResult extends RatioJudgement {
  /** The bench's name for the point's pair, e.g. `host-pool:alloc-free:alloc+free fresh 1×1`. */
  readonly name: string;
  /** Median unchecked cycle (ns). */
  readonly cycleNs: number;
  /** Median read pass over the cycle's freed slots (ns). */
  readonly readNs: number;
  /** Slots the cycle frees (each read once by the pass). */
  readonly slots: number;
  /** `readNs / slots`. */
  readonly readNsPerSlot: number;
}

/** The bench's host pool points: both states at every geometry. */
export const kFloorPoints: readonly FloorPoint[] = kHostCyclePoints;

/** The address the bench gives the point's case, so the two reports can be read side by side. */
export function floorPointName(point: FloorPoint): string {
  const { package: pkg, op } = addressOf(kHostCycleFile);
  return `${pkg}:${op}:${expandName(kHostCycleName, point)}`;
}

/**
 * Measures one point.
 *
 * @param onRound - called after each round (for a progress line).
 */
export function measureFloor(point: FloorPoint, settings: FloorSettings, onRound: (round: number) => void = () => {}): FloorResult {
  const { pageSize, sizes, freeOrder, sizeTokens } = hostCycleWorkload(point);
  const pool = new HostSlotPool({ sizeTokens, pageSize, dcpSize: point.dcp, checks: false });
  const held: Int32Array[] = Array.from({ length: kChunks }, () => new Int32Array(0));
  // The bench's cycle, line for line.
  const cycle = (p: HostSlotPool): void => {
    for (let i = 0; i < kChunks; i++) held[i] = p.alloc(sizes[i] as number) as Int32Array;
    for (let j = 0; j < kChunks; j++) p.free(held[freeOrder[j] as number] as Int32Array);
  };
  for (let c = stateCycles(point.state); c > 0; c--) cycle(pool);
  const snapshot = pool.backupState();
  // The slots one cycle from the snapshot frees, in the order it frees them.
  pool.restoreState(snapshot);
  cycle(pool);
  const freed = Array.from(freeOrder, (i) => (held[i] as Int32Array).slice());
  const pass = new ReadPass(freed);
  let sink = 0;
  const timeCycle = (): number => {
    pool.restoreState(snapshot);
    const t0 = performance.now();
    cycle(pool);
    return (performance.now() - t0) * 1e6;
  };
  const timeRead = (): number => {
    const t0 = performance.now();
    sink |= pass.readAll();
    return (performance.now() - t0) * 1e6;
  };
  for (let w = 0; w < settings.warmup; w++) {
    timeCycle();
    timeRead();
  }
  const block = (time: () => number): number => median(Array.from({ length: settings.reps }, time));
  const random = seededRandom(settings.seed);
  const cycles: number[] = [];
  const reads: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < settings.rounds; r++) {
    let c = 0;
    let rd = 0;
    for (const kind of shuffleInPlace(['cycle', 'read'], random)) {
      if (kind === 'cycle') c = block(timeCycle);
      else rd = block(timeRead);
    }
    cycles.push(c);
    reads.push(rd);
    ratios.push(1 + rd / c);
    onRound(r + 1);
  }
  // The OR of the slots read is known (the pass is tested to return it); a difference would mean a pass read something else.
  let expected = 0;
  for (const chunk of freed) for (const slot of chunk) expected |= slot;
  if (sink !== expected) throw new Error(`floor probe: the read pass returned ${sink}, the slots OR to ${expected}`);
  const slots = freed.reduce((n, chunk) => n + chunk.length, 0);
  const readNs = median(reads);
  return { name: floorPointName(point), ...judgeRatios(ratios, settings.margin), cycleNs: median(cycles), readNs, slots, readNsPerSlot: readNs / slots };
}
