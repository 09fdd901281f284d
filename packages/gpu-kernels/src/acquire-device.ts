import { create, globals } from 'webgpu';
import { NoAdapterError } from './errors.js';

/** A device and what the kernels need to know about its adapter. */
export interface GpuContext {
  readonly device: GPUDevice;
  /** Vendor / architecture / description, for reports (lavapipe says "llvmpipe"). */
  readonly adapterDescription: string;
  readonly timestampQuery: boolean;
  /** Destroys the device; the kernels' buffers go with it. */
  destroy(): void;
}

let globalsInstalled = false;
// Dawn's instance must outlive every device made from it: its event processing runs on the
// instance, and a collected instance crashes the process at the next callback (seen here with
// lavapipe). One instance per process, kept for good.
let instance: GPU | null = null;

/**
 * The one place that creates the WebGPU adapter and device (Dawn, through the `webgpu` package).
 *
 * @throws NoAdapterError naming the fix (the Vulkan software driver) when no adapter exists.
 */
export async function acquireDevice(): Promise<GpuContext> {
  if (!globalsInstalled) {
    // GPUBufferUsage, GPUMapMode, … are globals in a browser; Dawn's node binding provides them.
    Object.assign(globalThis, globals);
    globalsInstalled = true;
  }
  let adapter: GPUAdapter | null;
  try {
    instance ??= create([]);
    adapter = await instance.requestAdapter();
  } catch (error) {
    throw new NoAdapterError(`requestAdapter() threw: ${(error as Error).message}`);
  }
  if (adapter === null) throw new NoAdapterError('requestAdapter() returned null (no Vulkan driver, or one without the features Dawn needs)');
  const timestampQuery = adapter.features.has('timestamp-query');
  const device = await adapter.requestDevice(timestampQuery ? { requiredFeatures: ['timestamp-query'] } : {});
  const info = adapter.info;
  const adapterDescription = [info.vendor, info.architecture, info.description].filter((s) => s !== '').join(' / ') || 'unknown adapter';
  return { device, adapterDescription, timestampQuery, destroy: () => device.destroy() };
}
