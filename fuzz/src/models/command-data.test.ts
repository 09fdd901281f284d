import { describe, expect, it } from 'vitest';
import { hasData, printCall } from './command-data.js';

describe('fuzz:models,command-data', () => {
  it('prints calls the way the commands always printed themselves', () => {
    expect(printCall({ op: 'groupBegin', args: [] })).toBe('groupBegin()');
    expect(printCall({ op: 'alloc', args: [64] })).toBe('alloc(64)');
    expect(printCall({ op: 'reject', args: ['doubleFree', 0, 1] })).toBe("reject('doubleFree', 0, 1)");
    expect(printCall({ op: 'freeSegments', args: [0, { keepPages: 0, cuts: [] }] })).toBe('freeSegments(0, { keepPages: 0, cuts: [] })');
    expect(printCall({ op: 'extend', args: [[{ pick: null, tokens: 5 }], { padding: 0 }] })).toBe('extend([{ pick: null, tokens: 5 }], { padding: 0 })');
    expect(printCall({ op: 'freeSubset', args: [1, [true, false], { oneSlotPerPage: true }] })).toBe('freeSubset(1, [true, false], { oneSlotPerPage: true })');
  });

  it('prints any string as one inert single-quoted literal and odd keys quoted', () => {
    expect(printCall({ op: 'x', args: ["it's \\ \"q\"\n\u001b"] })).toBe("x('it\\'s \\\\ \"q\"\\n\\u001b')");
    expect(printCall({ op: 'x', args: [{ 'a-b': 1, ok: {} }] })).toBe("x({ 'a-b': 1, ok: {} })");
  });

  it('knows a command that carries its data', () => {
    expect(hasData({ toData: () => ({ op: 'alloc', args: [1] }) })).toBe(true);
    expect(hasData({ toString: () => 'alloc(1)' })).toBe(false);
    expect(hasData(null)).toBe(false);
  });
});
