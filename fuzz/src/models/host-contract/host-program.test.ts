import { describe, expect, it } from 'vitest';
import { decodeHostCommands } from './host-program.js';

// Every drawn host command's round trip through its printed and stored forms is in model-commands.test.ts.
describe('fuzz:models,host-program', () => {
  it('refuses a reject kind the model does not build', () => {
    expect(() => decodeHostCommands([{ op: 'hostReject', args: ['tripleFree', { n: 0, pick: 0, held: 0 }] }])).toThrow(/command 0 \(hostReject\)/);
  });
});
