import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import type { TargetCampaign } from '../campaign/campaign.js';
import { junitReport } from './junit-report.js';

/** Parses with saxes, a conforming XML parser: the first well-formedness error, or null. */
function xmlError(xml: string): string | null {
  const parser = new SaxesParser();
  let error: string | null = null;
  parser.on('error', (e) => {
    error ??= e.message;
  });
  try {
    parser.write(xml).close();
  } catch (e) {
    error ??= (e as Error).message;
  }
  return error;
}

function failed(text: string, rule: string, message: string): TargetCampaign {
  const failure = { path: '0', geometry: {}, program: [], commands: [], errorName: 'LedgerViolation', message, rule, contractRule: null };
  return {
    target: 'allocator',
    mutant: null,
    mode: 'contract',
    runs: 3,
    commands: 30,
    batches: 1,
    elapsedMs: 12,
    failure: { batch: 0, batchSeed: 1, detectMs: 5, text, report: { failed: true, interrupted: false, runs: 3, commands: 30, elapsedMs: 12, seed: 1, detectMs: 5, failure } },
  } as TargetCampaign;
}

describe('fuzz:cli,junit', () => {
  it('writes a well-formed document whose text a CI log shows inert', () => {
    const hostile = 'a\u0000b\u0001\u001b[31mred\r\n::error file=x::owned\n]]><![CDATA[<x>&"\'\ufffe\uffff\ud800';
    const xml = junitReport([failed(hostile, 'rule<&>', hostile)], 7, '0/1');
    expect(xmlError(xml)).toBeNull();
    expect(xml).toContain('\\0');
    expect(xml).toContain('\\e[31m');
    expect(xml).not.toMatch(/^\s*::/m);
    expect(xml).toContain('<testsuites name="kvfuzz" tests="1" failures="1">');
    expect(xml).toContain('<property name="seed" value="7"/>');
  });

  it('stays well-formed for any failure text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (text, rule, message) => xmlError(junitReport([failed(text, rule, message)], 1, '0/1')) === null),
      { numRuns: 300 },
    );
  });

  it('fails the parser on what it guards against (the check can fail)', () => {
    expect(xmlError('<a>\u0001</a>')).not.toBeNull();
    expect(xmlError('<a b="<"/>')).not.toBeNull();
  });
});
