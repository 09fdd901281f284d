import type { AllocatorConfig, AllocatorProvider, DecodeBatch, ExtendBatch, FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';
import type { HostPool, HostPoolProvider, HostSlotPoolConfig } from '@kvfuzz/host-pool';
import { kCommandsPerRunMax } from '../models/allocator/allocator-commands.js';
import { ProviderFault } from '../provider-fault.js';
import { ProviderRejection } from './errors.js';
import { ProcessBridge, type BridgeListener, type BridgeReply, type BridgeTimeouts } from './process-bridge.js';
import type { ProviderLaunch } from './provider-launch.js';
import { ProviderSnapshot } from './provider-snapshot.js';
import { checkReturned, integerOfReply, numberOfReply, slotsOfReply } from './reply-values.js';

/** The protocol this validator speaks (fuzz/PROTOCOL.md). */
export const kProtocolVersion = 'kvfuzz-allocator/1';

/**
 * Snapshots a module host keeps: a run takes at most two per command (a rejected call's before and
 * after) and restores only its last backup, so a run never needs one that was dropped.
 */
export const kModuleHostSnapshotsMax = 1_024;
if (2 * kCommandsPerRunMax + 1 >= kModuleHostSnapshotsMax) throw new Error('kModuleHostSnapshotsMax must hold every snapshot one run can take');

/** The longest wait for the reply to `bye`: the verdict is in by then, and a slow goodbye only delays the exit. */
const kByeTimeoutMsMax = 1_000;

type Request = { readonly op: string; readonly [field: string]: unknown };

/** Sends a request; `{"ok":false}` becomes a {@link ProviderRejection}. */
function send(bridge: ProcessBridge, request: Request): BridgeReply {
  const reply = bridge.call(request);
  if (!reply.ok) throw new ProviderRejection(request.op, reply.error);
  return reply;
}

/** The provider's current allocator, seen through the protocol. */
class ProcessAllocator implements PageAllocator {
  constructor(
    private readonly bridge: ProcessBridge,
    readonly pageSize: number,
    readonly numPages: number,
  ) {}

  availableSize(): number {
    return integerOfReply(send(this.bridge, { op: 'availableSize' }), 'value', 'availableSize()');
  }

  alloc(needSize: number): Int32Array | null {
    return slotsOfReply(send(this.bridge, { op: 'alloc', needSize }), 'alloc');
  }

  allocExtend(batch: ExtendBatch): Int32Array | null {
    const request = { op: 'allocExtend', prefixLens: Array.from(batch.prefixLens), seqLens: Array.from(batch.seqLens), lastLoc: Array.from(batch.lastLoc) };
    return slotsOfReply(send(this.bridge, request), 'allocExtend');
  }

  allocDecode(batch: DecodeBatch): Int32Array | null {
    return slotsOfReply(send(this.bridge, { op: 'allocDecode', seqLens: Array.from(batch.seqLens), lastLoc: Array.from(batch.lastLoc) }), 'allocDecode');
  }

  free(indices: ArrayLike<number>): void {
    send(this.bridge, { op: 'free', indices: Array.from(indices) });
  }

  freeSegments(segments: readonly FreeSegment[]): void {
    send(this.bridge, { op: 'freeSegments', segments: segments.map((s) => ({ indices: Array.from(s.indices), startPos: s.startPos })) });
  }

  freeGroupBegin(): void {
    send(this.bridge, { op: 'freeGroupBegin' });
  }

  freeGroupEnd(): void {
    send(this.bridge, { op: 'freeGroupEnd' });
  }

  backupState(): unknown {
    const reply = send(this.bridge, { op: 'backupState' });
    const digest = reply['digest'];
    return typeof digest === 'string' ? new ProviderSnapshot(reply['state'], digest) : reply['state'];
  }

  restoreState(state: unknown): void {
    send(this.bridge, { op: 'restoreState', state: ProviderSnapshot.wireOf(state) });
  }

  clear(): void {
    send(this.bridge, { op: 'clear' });
  }
}

/** A host pool behind the protocol (`--pool host`, PROTOCOL.md "Host pools"). */
class ProcessHostPool implements HostPool {
  constructor(
    private readonly bridge: ProcessBridge,
    readonly size: number,
    readonly pageSize: number,
  ) {}

  availableSize(): number {
    return integerOfReply(send(this.bridge, { op: 'hostAvailableSize' }), 'value', 'availableSize()');
  }

  alloc(n: number): Int32Array | null {
    return slotsOfReply(send(this.bridge, { op: 'hostAlloc', n }), 'alloc');
  }

  free(indices: ArrayLike<number>): number {
    return integerOfReply(send(this.bridge, { op: 'hostFree', indices: Array.from(indices) }), 'count', 'free');
  }

  clear(): void {
    send(this.bridge, { op: 'hostClear' });
  }
}

/** The process provider behind each host pool view ({@link ProcessProvider.host}). */
const hostViewOwners = new WeakMap<HostPoolProvider, ProcessProvider>();

/**
 * The process provider a provider object talks through — itself, or the process behind a host
 * pool view — or null for a provider that runs in this process.
 */
export function processProviderOf(provider: AllocatorProvider | HostPoolProvider): ProcessProvider | null {
  if (provider instanceof ProcessProvider) return provider;
  return hostViewOwners.get(provider as HostPoolProvider) ?? null;
}

/** How a provider process is started and waited for. */
export interface ProcessProviderOptions extends BridgeTimeouts {
  readonly launch: ProviderLaunch;
  /** The program is the module host: it loads the module on a `load` request, and names it then. */
  readonly moduleHost: boolean;
  /** What to call the provider until it names itself (its command line or module path). */
  readonly label: string;
}

/**
 * A provider process behind the JSON-lines protocol, usable wherever a module provider is: an
 * allocator provider, and through {@link ProcessProvider.host} a host pool provider.
 *
 * Construct it (the process starts), {@link open} it (greeting and, for a module, loading), run
 * the model, and {@link close} it on every path.
 */
export class ProcessProvider implements AllocatorProvider {
  private readonly bridge: ProcessBridge;
  private label: string;
  private startFault: ProviderFault | null = null;
  /** The provider's stderr tail once closed (closing twice returns it again). */
  private stderrTail: string | null = null;
  /** The same process as a host pool provider (`createHost`). */
  readonly host: HostPoolProvider;

  constructor(readonly options: ProcessProviderOptions) {
    this.bridge = new ProcessBridge(options.launch, options);
    this.label = options.label;
    const bridge = this.bridge;
    const owner = this;
    this.host = {
      get name(): string {
        return owner.name;
      },
      create(config: HostSlotPoolConfig): HostPool {
        const op = 'createHost';
        const reply = send(bridge, { op, config });
        checkReturned(reply, `create(${JSON.stringify(config)})`);
        const pageSize = reply['pageSize'] === undefined ? config.pageSize : numberOfReply(reply, 'pageSize', op);
        return new ProcessHostPool(bridge, numberOfReply(reply, 'size', op), pageSize);
      },
    };
    hostViewOwners.set(this.host, this);
  }

  /** The provider's name as it gave it (raw: print it through `inertLine`). */
  get name(): string {
    return this.label;
  }

  /** The first fault (the process could not be talked to), or null: the only source of a provider-fault verdict. */
  get fault(): ProviderFault | null {
    return this.startFault ?? this.bridge.fault;
  }

  /**
   * Has every line exchanged with the process from now on heard by `listener` (a violation's
   * transcript), until it is replaced or set to null.
   */
  listen(listener: BridgeListener | null): void {
    this.bridge.listen(listener);
  }

  /**
   * Greets the process and, for a module, has it load the module.
   *
   * @throws ProviderFault when it does not start within the start timeout, does not speak the
   *   protocol version, cannot load the module (missing default export, throwing getters, a throw
   *   while loading), or does not finish loading within the call timeout.
   */
  open(): void {
    try {
      const hello = this.bridge.call({ op: 'hello', protocol: kProtocolVersion });
      if (!hello.ok || hello['protocol'] !== kProtocolVersion) throw new ProviderFault(`does not speak ${kProtocolVersion}: ${JSON.stringify(hello).slice(0, 200)}`);
      if (typeof hello['name'] === 'string' && !this.options.moduleHost) this.label = hello['name'];
      if (this.options.moduleHost) {
        const loaded = this.bridge.call({ op: 'load', snapshotsMax: kModuleHostSnapshotsMax });
        if (!loaded.ok) throw new ProviderFault(typeof loaded.error === 'string' ? loaded.error : 'the module could not be loaded');
        if (typeof loaded['name'] === 'string') this.label = loaded['name'];
      }
    } catch (error) {
      if (error instanceof ProviderFault) this.startFault ??= error;
      throw error;
    }
  }

  create(config: AllocatorConfig): PageAllocator {
    const op = 'create';
    const reply = send(this.bridge, { op, config });
    checkReturned(reply, `create(${JSON.stringify(config)})`);
    return new ProcessAllocator(this.bridge, numberOfReply(reply, 'pageSize', op), numberOfReply(reply, 'numPages', op));
  }

  /**
   * Says goodbye (while the provider still listens), stops its process group and waits, bounded,
   * until it is gone.
   *
   * @returns the tail of the provider's stderr.
   */
  close(): string {
    if (this.stderrTail !== null) return this.stderrTail;
    if (this.fault === null) {
      try {
        this.bridge.call({ op: 'bye' }, Math.min(this.options.callTimeoutMs, kByeTimeoutMsMax));
      } catch {
        // The verdict is in: a provider that does not say goodbye is stopped all the same.
      }
    }
    this.stderrTail = this.bridge.close();
    return this.stderrTail;
  }
}
