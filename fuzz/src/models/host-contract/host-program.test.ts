import fc from 'fast-check';
import { hostSlotPoolProvider } from '@kvfuzz/host-pool';
import { describe, expect, it } from 'vitest';
import { expectRoundTrip } from '../../../test/support/expect-round-trip.js';
import { hostContractSpec } from './host-contract-model.js';
import { decodeHostCommands, kHostCodec, type HostProgramCommand } from './host-program.js';

describe('fuzz:models,host-program', () => {
  it('rebuilds every drawn host command from its data (through JSON), printed the same', () => {
    const runs = fc.sample(hostContractSpec(hostSlotPoolProvider, 'contract').arbitrary, { numRuns: 300, seed: 7 });
    // fast-check may hand a command over wrapped (its wrapper keeps the command as `cmd`).
    const drawn = runs.flatMap(([, commands]) => Array.from(commands, (c) => ('cmd' in c ? (c as { cmd: unknown }).cmd : c) as HostProgramCommand));
    const ops = expectRoundTrip(drawn, decodeHostCommands);
    expect(ops).toEqual(new Set(Object.keys(kHostCodec)));
  });

  it('refuses a reject kind the model does not build', () => {
    expect(() => decodeHostCommands([{ op: 'hostReject', args: ['tripleFree', { n: 0, pick: 0, held: 0 }] }])).toThrow(/command 0 \(hostReject\)/);
  });
});
