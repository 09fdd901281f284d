import { create, globals } from 'webgpu';
import { NoAdapterError } from './errors.js';

/** What the adapter says about itself (`GPUAdapterInfo`), as plain strings for reports. */
export interface GpuAdapterFacts {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  /** The adapter's own flag: a software or otherwise limited fallback adapter. */
  readonly isFallbackAdapter: boolean;
}

/** A device and what the kernels need to know about its adapter. */
export interface GpuContext {
  readonly device: GPUDevice;
  /** Vendor / architecture / description, for reports (lavapipe says "llvmpipe"). */
  readonly adapterDescription: string;
  /** The adapter's info field by field. */
  readonly adapter: GpuAdapterFacts;
  /**
   * The "GPU" is the CPU: a software rasterizer (lavapipe/llvmpipe, SwiftShader, WARP) or an adapter
   * that calls itself a fallback. Its kernel times are CPU times and say nothing about a real GPU.
   */
  readonly cpuEmulated: boolean;
  /** The device was created with the 'timestamp-query' feature (the adapter offers it). */
  readonly timestampQuery: boolean;
  /** Whether Dawn quantizes timestamp queries (its default; see {@link AcquireDeviceOptions}). */
  readonly timestampQuantization: boolean;
  /** Destroys the device; the kernels' buffers go with it. */
  destroy(): void;
}

/** How `acquireDevice` sets up Dawn. */
export interface AcquireDeviceOptions {
  /**
   * Dawn rounds timestamp query results down to a coarse grain (the low 16 bits of the nanosecond
   * count cleared) so that pages cannot build precise timers. Benches timing kernels turn it off
   * (`false`): Dawn's `timestamp_quantization` toggle, disabled on the instance.
   *
   * @defaultValue true
   */
  readonly timestampQuantization?: boolean;
}

/** Dawn toggle flag that turns timestamp quantization off (Dawn's Toggles.cpp: `timestamp_quantization`). */
const kNoQuantizationFlag = 'disable-dawn-features=timestamp_quantization';
/** Adapters whose "GPU" runs on the CPU, by the names their info carries. */
const kSoftwareAdapterPattern = /llvmpipe|lavapipe|swiftshader|\bwarp\b|software/i;

let globalsInstalled = false;
// Dawn's instance must outlive every device made from it: its event processing runs on the
// instance, and a collected instance crashes the process at the next callback (seen here with
// lavapipe). One instance per set of instance flags, kept for good: toggles such as timestamp
// quantization can only be given when an instance is created.
const instances = new Map<string, GPU>();

/**
 * The one place that creates the WebGPU adapter and device (Dawn, through the `webgpu` package).
 * The device gets 'timestamp-query' whenever the adapter offers it.
 *
 * @param options - Dawn settings; the default keeps Dawn's own.
 * @throws NoAdapterError naming the fix (the Vulkan software driver) when no adapter exists.
 */
export async function acquireDevice(options: AcquireDeviceOptions = {}): Promise<GpuContext> {
  const timestampQuantization = options.timestampQuantization ?? true;
  if (!globalsInstalled) {
    // GPUBufferUsage, GPUMapMode, … are globals in a browser; Dawn's node binding provides them.
    Object.assign(globalThis, globals);
    globalsInstalled = true;
  }
  const flags = timestampQuantization ? [] : [kNoQuantizationFlag];
  let adapter: GPUAdapter | null;
  try {
    let instance = instances.get(flags.join(' '));
    if (instance === undefined) {
      instance = create(flags);
      instances.set(flags.join(' '), instance);
    }
    adapter = await instance.requestAdapter();
  } catch (error) {
    throw new NoAdapterError(`requestAdapter() threw: ${(error as Error).message}`);
  }
  if (adapter === null) throw new NoAdapterError('requestAdapter() returned null (no Vulkan driver, or one without the features Dawn needs)');
  const timestampQuery = adapter.features.has('timestamp-query');
  const device = await adapter.requestDevice(timestampQuery ? { requiredFeatures: ['timestamp-query'] } : {});
  const info = adapter.info;
  const facts: GpuAdapterFacts = {
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
    // Older bindings lack the field; a missing flag is not a claim of a fallback adapter.
    isFallbackAdapter: (info as { isFallbackAdapter?: boolean }).isFallbackAdapter === true,
  };
  const adapterDescription = [info.vendor, info.architecture, info.description].filter((s) => s !== '').join(' / ') || 'unknown adapter';
  const cpuEmulated = facts.isFallbackAdapter || kSoftwareAdapterPattern.test(`${facts.vendor} ${facts.architecture} ${facts.device} ${facts.description}`);
  return { device, adapterDescription, adapter: facts, cpuEmulated, timestampQuery, timestampQuantization, destroy: () => device.destroy() };
}
