import { createAllocator, DoubleFreeError, type PagedAllocator } from '@kvfuzz/allocator-core';
import { HostDoubleFreeError, HostSlotPool } from '@kvfuzz/host-pool';
import { describe, expect, it } from 'vitest';
import { HiCacheController, type CopyOp } from './hicache-controller.js';

// Device page 4 = kernel page 2 × DCP 2; 8 device pages (slots 4 … 35, page 0 reserved).
const kPageSize = 4;
const kDevicePageCount = 8;

/** A controller over a real device allocator and a real host pool, both with checks on. */
function controllerOf(hostSizeTokens: number): { device: PagedAllocator; host: HostSlotPool; controller: HiCacheController; heard: CopyOp[] } {
  const device = createAllocator({ sizeTokens: kDevicePageCount * kPageSize, kernelPageSize: 2, dcpSize: 2, needSort: false, checks: true }) as PagedAllocator;
  const host = new HostSlotPool({ sizeTokens: hostSizeTokens, pageSize: kPageSize, dcpSize: 2, checks: true });
  const controller = new HiCacheController(device, host);
  const heard: CopyOp[] = [];
  controller.onCopy = (op) => heard.push(op);
  return { device, host, controller, heard };
}

function poolsOf(device: PagedAllocator, host: HostSlotPool): unknown {
  return { device: device.backupState(), deviceAvailable: device.availableSize(), host: host.inspect(), hostAvailable: host.availableSize() };
}

describe('hicache:controller', () => {
  it('write allocates host slots for the device slots and returns a copy in flight', () => {
    const { device, host, controller } = controllerOf(8); // 8 // 4 + 1 = 3 host pages = 12 slots
    const deviceSlots = device.alloc(8) as Int32Array;
    const deviceBefore = device.availableSize();
    const op = controller.write(deviceSlots, 7) as CopyOp;
    expect(op).not.toBeNull();
    expect(op.kind).toBe('write');
    expect(op.nodeId).toBe(7);
    expect(Array.from(op.device)).toEqual(Array.from(deviceSlots));
    expect(Array.from(op.host)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(host.availableSize()).toBe(12 - 8);
    expect(device.availableSize()).toBe(deviceBefore);
    expect(controller.pending()).toEqual([op]);
    // The op keeps copies: the caller may overwrite what it passed.
    deviceSlots.fill(0);
    expect(op.device[0]).not.toBe(0);
    host.verifyInvariants();
  });

  it('write returns null when the host pool is short, and nothing changes', () => {
    const { device, host, controller, heard } = controllerOf(8); // 12 host slots
    const first = controller.write(device.alloc(8) as Int32Array, 1) as CopyOp;
    const deviceSlots = device.alloc(8) as Int32Array;
    const before = poolsOf(device, host);
    // 4 host slots are left: 8 do not fit.
    expect(controller.write(deviceSlots, 2)).toBeNull();
    expect(poolsOf(device, host)).toEqual(before);
    expect(controller.pending()).toEqual([first]);
    expect(heard).toEqual([first]);
    // N − 1 pages fit: the next op takes the next id, so the failed write used none.
    const fits = controller.write(deviceSlots.subarray(0, 4), 3) as CopyOp;
    expect(fits.id).toBe(first.id + 1);
    expect(host.availableSize()).toBe(0);
  });

  it('load allocates device slots for the host slots; null when the device pool is short, nothing changes', () => {
    const { device, host, controller } = controllerOf(60);
    const hostSlots = host.alloc(12) as Int32Array;
    const op = controller.load(hostSlots, 5) as CopyOp;
    expect(op.kind).toBe('load');
    expect(op.nodeId).toBe(5);
    expect(Array.from(op.host)).toEqual(Array.from(hostSlots));
    expect(op.device.length).toBe(12);
    expect(op.device.every((slot) => slot >= kPageSize)).toBe(true); // never page 0
    expect(device.availableSize()).toBe(kDevicePageCount * kPageSize - 12);
    device.verifyInvariants();
    // 5 device pages are left: 20 slots load, 24 do not.
    const more = host.alloc(24) as Int32Array;
    const before = poolsOf(device, host);
    expect(controller.load(more, 6)).toBeNull();
    expect(poolsOf(device, host)).toEqual(before);
    expect(controller.pending()).toEqual([op]);
    expect(controller.load(more.subarray(0, 20), 6)).not.toBeNull();
    expect(device.availableSize()).toBe(0);
  });

  it('acks complete copies in any order; an unknown or completed id throws and changes nothing', () => {
    const { device, host, controller } = controllerOf(60);
    const a = controller.write(device.alloc(4) as Int32Array, 1) as CopyOp;
    const b = controller.load(host.alloc(4) as Int32Array, 2) as CopyOp;
    const c = controller.write(device.alloc(4) as Int32Array, 3) as CopyOp;
    expect([a.id, b.id, c.id]).toEqual([1, 2, 3]);
    expect(controller.ack(b.id)).toBe(b);
    expect(controller.pending()).toEqual([a, c]);
    expect(controller.ack(c.id)).toBe(c);
    expect(() => controller.ack(b.id)).toThrow('no copy 2 is in flight');
    expect(() => controller.ack(99)).toThrow('no copy 99 is in flight');
    expect(controller.pending()).toEqual([a]);
    expect(controller.ack(a.id)).toBe(a);
    expect(controller.pending()).toEqual([]);
    // Acks move no slots: the cache decides what the copy's slots become.
    expect(device.availableSize()).toBe(kDevicePageCount * kPageSize - 4 - 4 - 4);
    expect(host.availableSize()).toBe(host.size - 4 - 4 - 4);
  });

  it('onCopy hears every copy that starts, writes and loads, in order, and no failed one', () => {
    const { device, host, controller, heard } = controllerOf(8); // 12 host slots
    const w = controller.write(device.alloc(8) as Int32Array, 1) as CopyOp;
    expect(controller.write(device.alloc(8) as Int32Array, 2)).toBeNull();
    const l = controller.load(host.alloc(4) as Int32Array, 3) as CopyOp;
    expect(controller.load(new Int32Array(40), 4)).toBeNull();
    expect(heard).toEqual([w, l]);
  });

  it('clear forgets every copy in flight and leaves the pools to their owners', () => {
    const { device, host, controller } = controllerOf(60);
    const w = controller.write(device.alloc(8) as Int32Array, 1) as CopyOp;
    controller.load(host.alloc(4) as Int32Array, 2);
    const before = poolsOf(device, host);
    controller.clear();
    expect(controller.pending()).toEqual([]);
    expect(() => controller.ack(w.id)).toThrow(`no copy ${w.id} is in flight`);
    expect(poolsOf(device, host)).toEqual(before);
    // Ids keep counting, so an old id never completes a new copy.
    expect((controller.write(device.alloc(4) as Int32Array, 3) as CopyOp).id).toBe(3);
  });

  it('evictDevice and evictHost give slots back through the pools and return how many', () => {
    const { device, host, controller } = controllerOf(60);
    const deviceSlots = device.alloc(8) as Int32Array;
    const hostSlots = host.alloc(8) as Int32Array;
    expect(controller.evictDevice(deviceSlots)).toBe(8);
    expect(device.availableSize()).toBe(kDevicePageCount * kPageSize);
    expect(controller.evictHost(hostSlots)).toBe(8);
    expect(host.availableSize()).toBe(host.size);
    // The pools' checks stay in force behind the controller.
    expect(() => controller.evictDevice(deviceSlots)).toThrow(DoubleFreeError);
    expect(() => controller.evictHost(hostSlots)).toThrow(HostDoubleFreeError);
    device.verifyInvariants();
    host.verifyInvariants();
  });
});
