import type { PageAllocator } from '@kvfuzz/allocator-core';

/** What the controller needs of a host pool (a `HostSlotPool` or an alternative). */
export interface HostSlots {
  readonly size: number;
  availableSize(): number;
  alloc(n: number): Int32Array | null;
  free(indices: ArrayLike<number>): number;
  clear(): void;
}

/** A device ↔ host copy in flight; it completes only when acknowledged. */
export interface CopyOp {
  readonly id: number;
  readonly kind: 'write' | 'load';
  /** The tree node the copy is for. */
  readonly nodeId: number;
  /** Copies of the slots at submission: what the copy reads from and writes to. */
  readonly device: Int32Array;
  readonly host: Int32Array;
}

/**
 * The HiCache controller (the engine's `HiCacheController`): moves KV between the device pool and
 * the host pool. A write allocates host slots and starts a device → host copy; a load allocates
 * device slots and starts a host → device copy. Copies are asynchronous in the engine; here each
 * completes only when {@link HiCacheController.ack} is called with its id, in any order, so a model
 * can let evictions overtake them.
 *
 * Invariant: every op in flight holds its host and device slots (the cache's locks keep them).
 */
export class HiCacheController {
  private readonly inFlight = new Map<number, CopyOp>();
  private nextOpId = 1;
  /** Hears every copy as it starts (a model tracks what moves between the tiers). */
  onCopy: ((op: CopyOp) => void) | null = null;

  constructor(
    readonly device: PageAllocator,
    readonly host: HostSlots,
  ) {}

  /** Host slots for a copy of `deviceIndices`, or null when the host pool is short. */
  write(deviceIndices: ArrayLike<number>, nodeId: number): CopyOp | null {
    const host = this.host.alloc(deviceIndices.length);
    if (host === null) return null;
    return this.start('write', nodeId, Int32Array.from(deviceIndices), host);
  }

  /** Device slots for a copy of `hostIndices` (whole device pages), or null when the device pool is short. */
  load(hostIndices: ArrayLike<number>, nodeId: number): CopyOp | null {
    const device = this.device.alloc(hostIndices.length);
    if (device === null) return null;
    return this.start('load', nodeId, device, Int32Array.from(hostIndices));
  }

  /** Gives device slots back; returns how many. */
  evictDevice(deviceIndices: ArrayLike<number>): number {
    this.device.free(deviceIndices);
    return deviceIndices.length;
  }

  /** Gives host slots back; returns how many. */
  evictHost(hostIndices: ArrayLike<number>): number {
    return this.host.free(hostIndices);
  }

  /** Copies started and not yet acknowledged, oldest first. */
  pending(): CopyOp[] {
    return [...this.inFlight.values()];
  }

  /**
   * Completes a copy.
   *
   * @throws Error when no copy with that id is in flight.
   */
  ack(opId: number): CopyOp {
    const op = this.inFlight.get(opId);
    if (op === undefined) throw new Error(`no copy ${opId} is in flight`);
    this.inFlight.delete(opId);
    return op;
  }

  /** Forgets every copy in flight (the pools are cleared by their owners). */
  clear(): void {
    this.inFlight.clear();
  }

  private start(kind: CopyOp['kind'], nodeId: number, device: Int32Array, host: Int32Array): CopyOp {
    const op: CopyOp = { id: this.nextOpId++, kind, nodeId, device, host };
    this.inFlight.set(op.id, op);
    this.onCopy?.(op);
    return op;
  }
}
