/**
 * Times repetitions of a GPU call in one submission. With the adapter's timestamp queries (and
 * Dawn's quantization off), every repetition is bracketed by two timestamps — the start of its
 * first pass and the end of its last — and the measurement is the median repetition: GPU time
 * only, no submission or read-back. Without them, the repetitions run back to back in one command
 * buffer and the measurement is the wall time from submit to `onSubmittedWorkDone` divided by
 * their number, so the fixed cost of a submission is spread over many dispatches.
 *
 * @packageDocumentation
 */
import type { GpuContext, KernelTimestamps } from '@kvfuzz/gpu-kernels';
import { median } from '../stats/robust-center.js';

/** How GPU calls are timed: GPU timestamps around each call, or wall time over many calls. */
export type GpuTiming = 'timestamp-query' | 'wall-clock';

/** Records one repetition of a timed call into `encoder`; with `timestamps`, between the two queries. */
export type EncodeRep = (encoder: GPUCommandEncoder, timestamps?: KernelTimestamps) => void;

/**
 * Repetitions one submission may hold: two queries each, and WebGPU allows 4096 queries per set.
 * Wall-clock slices use the same bound (a command buffer of 1024 small passes encodes in ~1 ms).
 */
export const kRepsPerSubmitMax = 1024;
/** Bytes of one resolved timestamp (a u64 count of nanoseconds). */
const kTimestampBytes = 8;

/** A resolved timestamp pair that cannot be a duration (unavailable query, clock going back). */
export class TimestampError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimestampError';
  }
}

/**
 * Durations (ns) of `reps` repetitions from resolved timestamps laid out begin, end, begin, end, ….
 *
 * @throws TimestampError naming the repetition whose begin is 0 (never written) or whose end lies before its begin.
 */
export function decodeTimestampDurations(stamps: BigUint64Array, reps: number): Float64Array {
  if (stamps.length < 2 * reps) throw new TimestampError(`${stamps.length} timestamps for ${reps} repetitions (need ${2 * reps})`);
  const durations = new Float64Array(reps);
  for (let r = 0; r < reps; r++) {
    const begin = stamps[2 * r] as bigint;
    const end = stamps[2 * r + 1] as bigint;
    if (begin === 0n) throw new TimestampError(`repetition ${r}: begin timestamp is 0 (the query was never written)`);
    if (end < begin) throw new TimestampError(`repetition ${r}: end timestamp ${end} lies before begin ${begin}`);
    durations[r] = Number(end - begin);
  }
  return durations;
}

/** Owns the query set and read-back buffers of timed submissions on one device. */
export class GpuTimer {
  readonly timing: GpuTiming;
  private readonly querySet: GPUQuerySet | null;
  private readonly resolved: GPUBuffer | null;
  private readonly readBack: GPUBuffer | null;

  /**
   * @param context - the device; timestamp queries are used when it has them, unless `forceWallClock`.
   * @param forceWallClock - time by wall clock even when timestamps exist (tests the fallback path).
   */
  constructor(
    private readonly context: GpuContext,
    forceWallClock = false,
  ) {
    this.timing = context.timestampQuery && !forceWallClock ? 'timestamp-query' : 'wall-clock';
    if (this.timing === 'timestamp-query') {
      const bytes = 2 * kRepsPerSubmitMax * kTimestampBytes;
      this.querySet = context.device.createQuerySet({ type: 'timestamp', count: 2 * kRepsPerSubmitMax });
      this.resolved = context.device.createBuffer({ size: bytes, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      this.readBack = context.device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    } else {
      this.querySet = null;
      this.resolved = null;
      this.readBack = null;
    }
  }

  /**
   * Runs `reps` repetitions of `encodeRep` in one submission and returns the time of one (ns): the
   * median repetition's GPU time, or the submission's wall time over `reps`.
   *
   * @throws RangeError for `reps` outside `[1, kRepsPerSubmitMax]`.
   * @throws TimestampError when a timestamp pair is not a duration, or every repetition took 0 ns.
   */
  async timeRepsNs(encodeRep: EncodeRep, reps: number): Promise<number> {
    if (!Number.isInteger(reps) || reps < 1 || reps > kRepsPerSubmitMax) throw new RangeError(`reps ${reps} is not an integer in [1, ${kRepsPerSubmitMax}]`);
    const device = this.context.device;
    const encoder = device.createCommandEncoder();
    if (this.querySet === null || this.resolved === null || this.readBack === null) {
      for (let r = 0; r < reps; r++) encodeRep(encoder);
      const commands = encoder.finish();
      const start = process.hrtime.bigint();
      device.queue.submit([commands]);
      await device.queue.onSubmittedWorkDone();
      return Number(process.hrtime.bigint() - start) / reps;
    }
    for (let r = 0; r < reps; r++) encodeRep(encoder, { querySet: this.querySet, beginIndex: 2 * r, endIndex: 2 * r + 1 });
    encoder.resolveQuerySet(this.querySet, 0, 2 * reps, this.resolved, 0);
    encoder.copyBufferToBuffer(this.resolved, 0, this.readBack, 0, 2 * reps * kTimestampBytes);
    device.queue.submit([encoder.finish()]);
    await this.readBack.mapAsync(GPUMapMode.READ, 0, 2 * reps * kTimestampBytes);
    const stamps = new BigUint64Array(this.readBack.getMappedRange(0, 2 * reps * kTimestampBytes).slice(0));
    this.readBack.unmap();
    const ns = median(Array.from(decodeTimestampDurations(stamps, reps)));
    if (!(ns > 0)) throw new TimestampError(`the median of ${reps} repetitions took 0 ns: the call is below the timestamp resolution`);
    return ns;
  }

  destroy(): void {
    this.querySet?.destroy();
    this.resolved?.destroy();
    this.readBack?.destroy();
  }
}
