import { describe, expect, it } from 'vitest';
import { inertLine, inertText } from './inert-text.js';

describe('fuzz:text,inert', () => {
  it('keeps plain text and newlines as they are', () => {
    expect(inertText('page 17 given back twice\n  program (3 commands):')).toBe('page 17 given back twice\n  program (3 commands):');
    expect(inertText('naïve — 页 ✓ 🙂')).toBe('naïve — 页 ✓ 🙂');
  });

  it('shows terminal escapes, CR, NUL and other controls as visible escapes', () => {
    expect(inertText('\u001b]0;owned\u0007title')).toBe('\\e]0;owned\\x07title');
    expect(inertText('\u001b[2Kfake\rpass\u0000')).toBe('\\e[2Kfake\\rpass\\0');
    expect(inertText('\u007f\u0085\u009b')).toBe('\\x7f\\x85\\x9b');
  });

  it('escapes bidirectional overrides, line separators and lone surrogates', () => {
    expect(inertText('a\u202eb\u2066c\u2028d')).toBe('a\\u202eb\\u2066c\\u2028d');
    expect(inertText('x\ud800y\udc00z')).toBe('x\\ud800y\\udc00z');
  });

  it('never lets a line start with a CI workflow command', () => {
    const out = inertText('ok\n::error file=x::owned\n  ::set-output name=a::b\nnot::a command');
    expect(out.split('\n').some((line) => /^\s*::/.test(line))).toBe(false);
    expect(out).toBe('ok\n\\x3a:error file=x::owned\n  \\x3a:set-output name=a::b\nnot::a command');
    expect(inertText('::')).toBe('\\x3a:');
    expect(inertText(':x')).toBe(':x');
  });

  it('makes one bounded line', () => {
    expect(inertLine('a\nb\tc')).toBe('a\\nb\\tc');
    expect(inertLine('::warning::x')).toBe('\\x3a:warning::x');
    expect(inertLine('x'.repeat(250), 200)).toBe(`${'x'.repeat(200)}… (50 more characters)`);
    expect(inertLine('x'.repeat(200), 200)).toBe('x'.repeat(200));
  });
});
