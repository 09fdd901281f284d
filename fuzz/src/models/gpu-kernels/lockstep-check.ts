import type { GpuPlan } from '@kvfuzz/gpu-kernels';
import { LedgerViolation } from '../../ledger/ledger-violation.js';
import type { OpLabel } from '../../ledger/op-label.js';

/** What the CPU allocator answered for a batch: its slots (or `null`) and the free pages it consumed. */
export interface CpuAnswer {
  readonly slots: Int32Array | null;
  readonly pageCount: number;
}

/**
 * Requires the GPU plan to be the CPU allocator's answer: both `null`, or the same slots in the same
 * order and the same number of free pages consumed.
 *
 * @param op - the command as printed, for the message.
 * @param call - which call the two sides made (`planExtend` / `allocExtend`), for the message.
 * @param tokensPerRequest - output slots of each request, in batch order, to name the request of a mismatch.
 * @throws LedgerViolation `gpu-differs` naming the first mismatch: its request index, expected and got.
 */
export function expectSamePlan(op: OpLabel, call: string, cpu: CpuAnswer, gpu: GpuPlan | null, tokensPerRequest: ArrayLike<number>): void {
  if (cpu.slots === null || gpu === null) {
    if (cpu.slots === gpu) return;
    const gpuSaid = gpu === null ? 'null' : `${gpu.slots.length} slots (${gpu.pageCount} pages)`;
    const cpuSaid = cpu.slots === null ? 'null (short)' : `${cpu.slots.length} slots (${cpu.pageCount} pages)`;
    throw new LedgerViolation('gpu-differs', `${op}: the GPU ${call} returned ${gpuSaid}, the CPU allocator ${cpuSaid}`);
  }
  if (gpu.slots.length !== cpu.slots.length) {
    throw new LedgerViolation('gpu-differs', `${op}: the GPU ${call} returned ${gpu.slots.length} slots, the CPU allocator ${cpu.slots.length}`);
  }
  let request = 0;
  let requestEnd = tokensPerRequest[0] ?? 0;
  for (let k = 0; k < cpu.slots.length; k++) {
    while (k >= requestEnd && request < tokensPerRequest.length - 1) requestEnd += tokensPerRequest[++request] as number;
    if (gpu.slots[k] !== cpu.slots[k]) {
      const offset = k - (requestEnd - (tokensPerRequest[request] as number));
      throw new LedgerViolation('gpu-differs', `${op}: the GPU ${call} differs at request ${request}, its output ${offset}: expected slot ${cpu.slots[k]}, got ${gpu.slots[k]}`);
    }
  }
  if (gpu.pageCount !== cpu.pageCount) {
    throw new LedgerViolation('gpu-differs', `${op}: the GPU ${call} consumes ${gpu.pageCount} free pages, the CPU allocator ${cpu.pageCount}`);
  }
}
