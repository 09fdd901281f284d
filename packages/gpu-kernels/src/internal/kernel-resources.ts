import { kParamsWords } from '../kernel-limits.js';
import { fillSource, freeSource, scanSource, type KernelBug } from '../wgsl-sources.js';

/** The extend/decode passes of one page size. */
export interface PagedPipelines {
  readonly scan: GPUComputePipeline;
  readonly fill: GPUComputePipeline;
}

/**
 * Compute pipelines, compiled once per page size (the WGSL bakes the page size in as a `const`)
 * and once per free kind, for one device and one planted bug (`'none'` for the real kernels).
 *
 * @internal
 */
export class KernelPipelines {
  private readonly paged = new Map<number, PagedPipelines>();
  private readonly frees = new Map<boolean, GPUComputePipeline>();

  constructor(
    private readonly device: GPUDevice,
    private readonly bug: KernelBug,
  ) {}

  /** The scan and fill passes of `pageSize`. */
  pagedFor(pageSize: number): PagedPipelines {
    let found = this.paged.get(pageSize);
    if (found === undefined) {
      found = { scan: this.compile(scanSource(pageSize, this.bug), 'scan'), fill: this.compile(fillSource(pageSize, this.bug), 'fill') };
      this.paged.set(pageSize, found);
    }
    return found;
  }

  /** The checked or unchecked batch free. */
  freeFor(checked: boolean): GPUComputePipeline {
    let found = this.frees.get(checked);
    if (found === undefined) {
      found = this.compile(freeSource(checked), 'freeBatch');
      this.frees.set(checked, found);
    }
    return found;
  }

  private compile(code: string, entryPoint: string): GPUComputePipeline {
    return this.device.createComputePipeline({ layout: 'auto', compute: { module: this.device.createShaderModule({ code }), entryPoint } });
  }
}

/**
 * A storage buffer holding `data` (at least one word: WebGPU refuses empty bindings), recorded
 * in `created` so the caller destroys it.
 *
 * @internal
 */
export function storageBuffer(device: GPUDevice, data: Uint32Array<ArrayBuffer> | Int32Array<ArrayBuffer>, created: GPUBuffer[], readBack: boolean): GPUBuffer {
  const buffer = device.createBuffer({
    size: Math.max(4, data.byteLength),
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | (readBack ? GPUBufferUsage.COPY_SRC : 0),
  });
  created.push(buffer);
  if (data.byteLength > 0) device.queue.writeBuffer(buffer, 0, data);
  return buffer;
}

/**
 * A uniform block of `kParamsWords` words starting with `words`, recorded in `created`.
 *
 * @internal
 */
export function uniformBuffer(device: GPUDevice, words: readonly number[], created: GPUBuffer[]): GPUBuffer {
  const data = new Uint32Array(kParamsWords);
  data.set(words);
  const buffer = device.createBuffer({ size: data.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  created.push(buffer);
  device.queue.writeBuffer(buffer, 0, data);
  return buffer;
}
