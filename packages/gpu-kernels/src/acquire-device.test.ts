import { describe, expect, it } from 'vitest';
import { acquireDevice } from './acquire-device.js';
import { kAdapterFix, NoAdapterError } from './errors.js';

describe('gpu-kernels:acquire-device', () => {
  it('creates a device on this machine (a missing adapter fails here, it never skips)', async () => {
    const context = await acquireDevice();
    try {
      expect(context.adapterDescription.length).toBeGreaterThan(0);
      expect(context.device.limits.maxComputeInvocationsPerWorkgroup).toBeGreaterThanOrEqual(256);
    } finally {
      context.destroy();
    }
  });

  it('turns Dawn\'s timestamp quantization off on request and describes the adapter', async () => {
    const context = await acquireDevice({ timestampQuantization: false });
    try {
      expect(context.timestampQuantization).toBe(false);
      expect(context.adapterDescription).toContain(context.adapter.vendor);
      // lavapipe is the CI driver; a real GPU must not be taken for a CPU emulation.
      if (/llvmpipe/.test(context.adapter.description)) expect(context.cpuEmulated).toBe(true);
    } finally {
      context.destroy();
    }
  });

  it('names the fix when there is no adapter', () => {
    const error = new NoAdapterError('requestAdapter() returned null');
    expect(error.name).toBe('NoAdapterError');
    expect(error.message).toContain('mesa-vulkan-drivers ≥ 25 from bookworm-backports');
    expect(error.message).toContain(kAdapterFix);
  });
});
