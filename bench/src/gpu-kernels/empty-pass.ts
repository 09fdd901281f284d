/**
 * The GPU's "empty function": one compute pass dispatching one invocation of a kernel that does
 * nothing. A kernel whose time is within `kEmptyFactorMin` of it measures dispatch overhead, not
 * its own work (STYLE 20).
 *
 * @packageDocumentation
 */
import type { EncodeRep } from './gpu-timer.js';

const kEmptySource = /* wgsl */ `
@compute @workgroup_size(1)
fn empty() {}
`;

/** An `EncodeRep` recording one empty pass (with the timestamps on that pass when given). */
export function createEmptyRep(device: GPUDevice): EncodeRep {
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code: kEmptySource }), entryPoint: 'empty' } });
  return (encoder, timestamps) => {
    const pass = encoder.beginComputePass(
      timestamps === undefined ? {} : { timestampWrites: { querySet: timestamps.querySet, beginningOfPassWriteIndex: timestamps.beginIndex, endOfPassWriteIndex: timestamps.endIndex } },
    );
    pass.setPipeline(pipeline);
    pass.dispatchWorkgroups(1);
    pass.end();
  };
}
