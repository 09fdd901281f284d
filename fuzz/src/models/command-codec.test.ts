import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { BadInput } from '../bad-input.js';
import { codecEntry, decodeCommand, decodeCommands, type CommandCodec } from './command-codec.js';

const codec: CommandCodec<string> = {
  add: codecEntry(z.tuple([z.int(), z.int()]), (a, b) => `${a + b}`),
  none: codecEntry(z.tuple([]), () => 'none'),
};

describe('fuzz:models,command-codec', () => {
  it('calls the named builder with its checked arguments', () => {
    expect(decodeCommands(codec, [{ op: 'add', args: [1, 2] }, { op: 'none', args: [] }])).toEqual(['3', 'none']);
  });

  it.each([
    [{ op: 'sub', args: [] }, /^command 4: 'sub' is not a command of this target \(add, none\)$/],
    [{ op: 'toString', args: [] }, /^command 4: 'toString' is not a command of this target/],
    [{ op: '__proto__', args: [] }, /^command 4: '__proto__' is not a command of this target/],
    [{ op: 'add', args: [1] }, /^command 4 \(add\): args: Too small: expected array to have >=2 items$/],
    [{ op: 'add', args: [1, 2.5] }, /^command 4 \(add\): args\[1\]: Invalid input: expected int, received number$/],
    [{ op: 'none', args: [0] }, /^command 4 \(none\): args: Too big: expected array to have <=0 items$/],
  ])('refuses %j with BadInput naming the command', (data, message) => {
    expect(() => decodeCommand(codec, data, 4)).toThrow(BadInput);
    expect(() => decodeCommand(codec, data, 4)).toThrow(message);
  });
});
