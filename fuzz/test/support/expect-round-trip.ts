import { expect } from 'vitest';
import { printCall, type CommandData, type DataCommand } from '../../src/models/command-data.js';

/**
 * Holds drawn commands to their two forms: each prints as its data prints, and its data, through
 * JSON and the model's codec, rebuilds a command that prints the same.
 *
 * @returns the builder names the drawn commands used (to check that every builder came up).
 */
export function expectRoundTrip(drawn: readonly (DataCommand & { toString(): string })[], decode: (data: readonly CommandData[]) => readonly { toString(): string }[]): Set<string> {
  for (const c of drawn) {
    const data = c.toData();
    expect(printCall(data)).toBe(c.toString());
    expect(decode(JSON.parse(JSON.stringify([data])) as CommandData[]).map(String)).toEqual([c.toString()]);
  }
  return new Set(drawn.map((c) => c.toData().op));
}
