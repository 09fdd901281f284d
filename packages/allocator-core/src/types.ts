/**
 * The allocator contract: what the reference implements and what an alternative implementation
 * must implement to be validated by kvfuzz. Sizes are in tokens, indices are token slots, page
 * `p` covers slots `[p * pageSize, (p + 1) * pageSize)`, and page 0 is reserved.
 *
 * @packageDocumentation
 */

/** How an allocator is built. */
export interface AllocatorConfig {
  /**
   * Logical pool size in token slots (under DCP: cluster-wide, i.e. per-rank size × dcpSize).
   * Must be a positive multiple of the allocator page size: the engine silently drops the
   * remainder, kvfuzz refuses it.
   */
  readonly sizeTokens: number;
  /**
   * The attention kernel's page size in tokens.
   * @defaultValue 1
   */
  readonly kernelPageSize?: number;
  /**
   * Decode-context-parallel world size. The allocator page is widened to
   * `kernelPageSize * dcpSize`. A power of two.
   * @defaultValue 1
   */
  readonly dcpSize?: number;
  /**
   * Stage freed pages and merge them sorted when an allocation runs short (the engine's
   * `need_sort`), instead of reusing them immediately.
   * @defaultValue false
   */
  readonly needSort?: boolean;
  /**
   * Keep a per-page state array and reject double allocation, double free and inconsistent
   * arguments with typed errors, before any state change.
   * @defaultValue true
   */
  readonly checks?: boolean;
}

/** An {@link AllocatorConfig} with every default filled in and the derived geometry. */
export interface ResolvedAllocatorConfig {
  readonly sizeTokens: number;
  readonly kernelPageSize: number;
  readonly dcpSize: number;
  readonly needSort: boolean;
  readonly checks: boolean;
  /** Allocator page size in slots: `kernelPageSize * dcpSize`. */
  readonly pageSize: number;
  /** Pages that can be handed out: ids `1 .. pageCount` (page 0 is reserved). */
  readonly pageCount: number;
}

/** One extend batch: one entry per request, in batch order. */
export interface ExtendBatch {
  /** Tokens each request already holds. */
  readonly prefixLens: ArrayLike<number>;
  /** Each request's length after the extend (`>= prefixLens[i]`). */
  readonly seqLens: ArrayLike<number>;
  /** Slot of position `prefixLens[i] - 1`, or `-1` when the prefix is empty. */
  readonly lastLoc: ArrayLike<number>;
}

/** One decode batch: one new token per request, in batch order. */
export interface DecodeBatch {
  /** Each request's length after the new token (`>= 1`). */
  readonly seqLens: ArrayLike<number>;
  /** Slot of position `seqLens[i] - 2`, or `-1` when `seqLens[i] == 1`. */
  readonly lastLoc: ArrayLike<number>;
}

/** A run of one request's row, `[startPos, startPos + indices.length)`, given back by `freeSegments`. */
export interface FreeSegment {
  /** The row's slots for the run, position by position. */
  readonly indices: ArrayLike<number>;
  /** Row position of `indices[0]`; must be page-aligned. */
  readonly startPos: number;
}

/**
 * A paged KV-cache allocator. Callers may overwrite any array they passed as soon as a call
 * returns. CONTRACT.md at the repository root says, rule by rule, what must be refused.
 */
export interface PageAllocator {
  /** Allocator page size in slots. */
  readonly pageSize: number;
  /** Pages that can be handed out (page ids `1 .. numPages`). */
  readonly numPages: number;
  /** Free slots: every free or staged page, times the page size. */
  availableSize(): number;
  /** Whole pages for `needSize` slots (a page multiple), or `null` when short. */
  alloc(needSize: number): Int32Array | null;
  /** The `Σ(seq − prefix)` new slots of an extend batch, request after request, or `null` when short. */
  allocExtend(batch: ExtendBatch): Int32Array | null;
  /** One new slot per request, or `null` when short. */
  allocDecode(batch: DecodeBatch): Int32Array | null;
  /** Gives back the whole pages of the given slots (each page once per call). */
  free(indices: ArrayLike<number>): void;
  /** Gives back page-disjoint, page-aligned row segments. */
  freeSegments(segments: readonly FreeSegment[]): void;
  /** Defers every free until {@link PageAllocator.freeGroupEnd}; groups do not nest. */
  freeGroupBegin(): void;
  /** Releases everything deferred since the matching {@link PageAllocator.freeGroupBegin}. */
  freeGroupEnd(): void;
  /** A snapshot of the free state for {@link PageAllocator.restoreState}. */
  backupState(): unknown;
  /** Returns the free state to a snapshot: pages handed out since are free again, frees since are undone. */
  restoreState(state: unknown): void;
  /** Every page free, nothing staged, no open group. */
  clear(): void;
}

/** What a module provider default-exports for `pnpm validate`. */
export interface AllocatorProvider {
  /** A short name for reports. */
  readonly name: string;
  /** Builds a fresh allocator. */
  create(config: AllocatorConfig): PageAllocator;
}
