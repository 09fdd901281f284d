import type { AllocatorConfig, AllocatorProvider, DecodeBatch, ExtendBatch, FreeSegment, PageAllocator } from '@kvfuzz/allocator-core';
import type { HostPool, HostPoolProvider, HostSlotPoolConfig } from '@kvfuzz/host-pool';
import { ProviderFault } from '../provider-fault.js';
import { ProcessBridge, type BridgeReply } from './process-bridge.js';

/** The protocol this validator speaks (fuzz/PROTOCOL.md). */
export const kProtocolVersion = 'kvfuzz-allocator/1';

/** A rejection the provider reported (`{"ok":false,"error":"Name: message"}`), rethrown as an error of that name. */
export class ProviderRejection extends Error {
  constructor(message: string) {
    super(message);
    const named = /^([A-Za-z]\w*(?:Error|Exception)): /.exec(message);
    this.name = named?.[1] ?? 'ProviderRejection';
  }
}

function toInt32Array(value: unknown, op: string): Int32Array | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.some((x) => !Number.isInteger(x))) throw new ProviderFault(`the reply to ${op} has "indices" that is not an array of integers or null`);
  return Int32Array.from(value as number[]);
}

/** The provider's current allocator, seen through the protocol. */
class ProcessAllocator implements PageAllocator {
  constructor(
    private readonly bridge: ProcessBridge,
    readonly pageSize: number,
    readonly numPages: number,
  ) {}

  private send(request: { readonly op: string; readonly [field: string]: unknown }): BridgeReply {
    const reply = this.bridge.call(request);
    if (!reply.ok) throw new ProviderRejection(String(reply.error ?? `${request.op} failed`));
    return reply;
  }

  availableSize(): number {
    const value = this.send({ op: 'availableSize' }).value;
    if (!Number.isInteger(value)) throw new ProviderFault(`the reply to availableSize has "value" ${String(value)}, not an integer`);
    return value as number;
  }

  alloc(needSize: number): Int32Array | null {
    return toInt32Array(this.send({ op: 'alloc', needSize }).indices, 'alloc');
  }

  allocExtend(batch: ExtendBatch): Int32Array | null {
    const request = { op: 'allocExtend', prefixLens: Array.from(batch.prefixLens), seqLens: Array.from(batch.seqLens), lastLoc: Array.from(batch.lastLoc) };
    return toInt32Array(this.send(request).indices, 'allocExtend');
  }

  allocDecode(batch: DecodeBatch): Int32Array | null {
    return toInt32Array(this.send({ op: 'allocDecode', seqLens: Array.from(batch.seqLens), lastLoc: Array.from(batch.lastLoc) }).indices, 'allocDecode');
  }

  free(indices: ArrayLike<number>): void {
    this.send({ op: 'free', indices: Array.from(indices) });
  }

  freeSegments(segments: readonly FreeSegment[]): void {
    this.send({ op: 'freeSegments', segments: segments.map((s) => ({ indices: Array.from(s.indices), startPos: s.startPos })) });
  }

  freeGroupBegin(): void {
    this.send({ op: 'freeGroupBegin' });
  }

  freeGroupEnd(): void {
    this.send({ op: 'freeGroupEnd' });
  }

  backupState(): unknown {
    return this.send({ op: 'backupState' }).state;
  }

  restoreState(state: unknown): void {
    this.send({ op: 'restoreState', state });
  }

  clear(): void {
    this.send({ op: 'clear' });
  }
}

/** A host pool behind the protocol (`--pool host`, PROTOCOL.md "Host pools"). */
class ProcessHostPool implements HostPool {
  constructor(
    private readonly bridge: ProcessBridge,
    readonly size: number,
    readonly pageSize: number,
  ) {}

  private send(request: { readonly op: string; readonly [field: string]: unknown }): BridgeReply {
    const reply = this.bridge.call(request);
    if (!reply.ok) throw new ProviderRejection(String(reply.error ?? `${request.op} failed`));
    return reply;
  }

  availableSize(): number {
    const value = this.send({ op: 'hostAvailableSize' }).value;
    if (!Number.isInteger(value)) throw new ProviderFault(`the reply to hostAvailableSize has "value" ${String(value)}, not an integer`);
    return value as number;
  }

  alloc(n: number): Int32Array | null {
    return toInt32Array(this.send({ op: 'hostAlloc', n }).indices, 'hostAlloc');
  }

  free(indices: ArrayLike<number>): number {
    const count = this.send({ op: 'hostFree', indices: Array.from(indices) }).count;
    if (!Number.isInteger(count)) throw new ProviderFault(`the reply to hostFree has "count" ${String(count)}, not an integer`);
    return count as number;
  }

  clear(): void {
    this.send({ op: 'hostClear' });
  }
}

/** A provider process behind the JSON-lines protocol, usable wherever a module provider is. */
export interface ProcessProvider extends AllocatorProvider {
  /** The same process as a host pool provider (`createHost`). */
  readonly host: HostPoolProvider;
  close(): void;
}

/**
 * Starts `command` and greets it.
 *
 * @throws ProviderFault when the process does not start, does not speak the protocol version, or
 *   breaks the protocol.
 */
export function startProcessProvider(command: string, callTimeoutMs: number): ProcessProvider {
  const bridge = new ProcessBridge(command, callTimeoutMs);
  const hello = bridge.call({ op: 'hello', protocol: kProtocolVersion });
  if (!hello.ok || hello['protocol'] !== kProtocolVersion) {
    bridge.close();
    throw new ProviderFault(`\`${command}\` does not speak ${kProtocolVersion}: ${JSON.stringify(hello).slice(0, 200)}`);
  }
  const name = typeof hello['name'] === 'string' ? hello['name'] : command;
  return {
    name,
    create(config: AllocatorConfig): PageAllocator {
      const reply = bridge.call({ op: 'create', config });
      if (!reply.ok) throw new ProviderRejection(String(reply.error ?? 'create failed'));
      const { pageSize, numPages } = reply as { pageSize?: unknown; numPages?: unknown };
      if (!Number.isInteger(pageSize) || !Number.isInteger(numPages)) throw new ProviderFault(`the reply to create lacks integer pageSize and numPages: ${JSON.stringify(reply).slice(0, 200)}`);
      return new ProcessAllocator(bridge, pageSize as number, numPages as number);
    },
    host: {
      name,
      create(config: HostSlotPoolConfig): HostPool {
        const reply = bridge.call({ op: 'createHost', config });
        if (!reply.ok) throw new ProviderRejection(String(reply.error ?? 'createHost failed'));
        const size = (reply as { size?: unknown }).size;
        if (!Number.isInteger(size)) throw new ProviderFault(`the reply to createHost lacks an integer size: ${JSON.stringify(reply).slice(0, 200)}`);
        return new ProcessHostPool(bridge, size as number, config.pageSize);
      },
    },
    close(): void {
      try {
        bridge.call({ op: 'bye' });
      } catch {
        // Already gone: closing is best effort.
      }
      bridge.close();
    },
  };
}
