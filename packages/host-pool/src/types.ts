/**
 * The host pool contract: what the reference `HostSlotPool` implements and what an
 * alternative host pool implements to be driven by kvfuzz's models.
 *
 * Units: every size and index is in **logical slots**. Without DCP a logical slot is a host token
 * slot. Under DCP (`dcpSize` D > 1) logical slot `i` lives on rank `i % D` at physical row
 * `i / D` (rounded down), and the host page is the widened page (kernel page × D); a physical row
 * and a physical (kernel) page are always spelled out as such.
 *
 * @packageDocumentation
 */

/** How a host slot pool is built. */
export interface HostSlotPoolConfig {
  /**
   * The requested host size in logical slots (the engine's `device size × host_to_device_ratio`,
   * or the byte budget divided by the bytes per token; under DCP, per-rank tokens × dcpSize). The
   * pool rounds it down to whole pages and then adds one page (see `HostSlotPool.size`): a
   * non-negative integer, and 0 (the engine's empty request) makes a pool of one page.
   */
  readonly sizeTokens: number;
  /**
   * The host page in logical slots: the device allocator's page, which under DCP is the widened
   * page (kernel page × dcpSize). `alloc` takes multiples of it.
   */
  readonly pageSize: number;
  /**
   * Decode-context-parallel world size; a power of two that divides `pageSize`.
   * @defaultValue 1
   */
  readonly dcpSize?: number;
  /**
   * Keep the engine's `slot_used` flags and reject double allocation, double free and slots
   * outside the pool with typed errors, before any state change.
   * @defaultValue true
   */
  readonly checks?: boolean;
}

/** A {@link HostSlotPoolConfig} with every default filled in and the physical page derived. */
export interface ResolvedHostSlotPoolConfig {
  readonly sizeTokens: number;
  readonly pageSize: number;
  readonly dcpSize: number;
  readonly checks: boolean;
  /** The physical (kernel) page in rows per rank: `pageSize / dcpSize`, exact. */
  readonly physicalPageSize: number;
}

/** What `HostSlotPool.inspect()` returns: copies, front first. */
export interface HostSlotPoolInspection {
  /** The free list, handed out from the front. */
  readonly free: Int32Array;
  /** The chunks given back and not yet merged, in release order, one array per non-empty `free` call. */
  readonly pending: readonly Int32Array[];
}

/**
 * A host (L2) slot pool. Slots are numbered from 0 (no reserved slot). Callers may overwrite any
 * array they passed as soon as a call returns.
 *
 * What every implementation must reject by throwing, leaving its state unchanged: `alloc` of a
 * negative, non-integer or non-page-multiple size. With checks on, also: giving back a slot that
 * is not allocated (never handed out, given back already, or named twice in one call) or that
 * lies outside the pool.
 */
export interface HostPool {
  /** Logical slots in the pool: ids `0 .. size − 1`. */
  readonly size: number;
  /** The host page in logical slots; `alloc` takes multiples of it. */
  readonly pageSize: number;
  /** Slots that can be handed out now: the free list plus the chunks given back and not yet merged. */
  availableSize(): number;
  /** `n` slots (a page multiple), or `null` when fewer than `n` are available (nothing changes then). */
  alloc(n: number): Int32Array | null;
  /** Gives slots back; returns how many (0 for an empty call, which records nothing). */
  free(indices: ArrayLike<number>): number;
  /** Every slot free, nothing pending. */
  clear(): void;
}

/** What a module provider of an alternative host pool exports. */
export interface HostPoolProvider {
  /** A short name for reports. */
  readonly name: string;
  /** Builds a fresh pool. */
  create(config: HostSlotPoolConfig): HostPool;
}
