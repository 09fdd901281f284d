import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kAllocatorRules } from './allocator-rules.js';
import type { ContractRule } from './contract-rule.js';
import { kHostRules } from './host-rules.js';

const kRoot = fileURLToPath(new URL('../../../', import.meta.url));
const kContract = readFileSync(join(kRoot, 'CONTRACT.md'), 'utf8');

/** The rules as CONTRACT.md writes them: a `### ID — statement` heading, then the `Level: … · Checks: … · Mode: …` line. */
function documentRules(text: string): ContractRule[] {
  const rules: ContractRule[] = [];
  const heading = /^### ([AH]\d+) — (.+)\n\nLevel: (MUST refuse|MUST|MAY) · Checks: (both|on) · Mode: (both|exact)$/gm;
  for (const m of text.matchAll(heading)) {
    rules.push({ id: m[1] as string, title: m[2] as string, level: m[3] as ContractRule['level'], checks: m[4] as ContractRule['checks'], mode: m[5] as ContractRule['mode'] });
  }
  return rules;
}

/** Documents and sources of the repository (Markdown, TypeScript, JavaScript, Python), outside dependencies and build output. */
function textFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name === 'out' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return textFiles(path);
    return /\.(md|ts|mjs|py)$/.test(name) ? [path] : [];
  });
}

describe('fuzz:contract,document', () => {
  it('writes every rule the validator knows, with the same statement, level, checks and mode, in order', () => {
    expect(documentRules(kContract)).toEqual([...kAllocatorRules, ...kHostRules]);
  });

  it('has no rule heading the pattern misses (a malformed rule cannot slip past the check above)', () => {
    const headings = [...kContract.matchAll(/^### ([AH]\d+)\b/gm)].map((m) => m[1]);
    expect(headings).toEqual(documentRules(kContract).map((r) => r.id));
  });

  it('numbers the rules A1 … and H1 … without gaps', () => {
    expect(kAllocatorRules.map((r) => r.id)).toEqual(kAllocatorRules.map((_, i) => `A${i + 1}`));
    expect(kHostRules.map((r) => r.id)).toEqual(kHostRules.map((_, i) => `H${i + 1}`));
  });

  it('lists the allowed behaviours of every rule that leaves a choice', () => {
    for (const rule of [...kAllocatorRules, ...kHostRules].filter((r) => r.level === 'MAY' || r.id === 'A24')) {
      const section = kContract.slice(kContract.indexOf(`### ${rule.id} — `)).split(/\n### /)[0] as string;
      expect(section, rule.id).toMatch(/^Allowed/m);
    }
  });

  it('is the only contract: no document in the repository points to a file the repository does not have', () => {
    // Notes that live outside the repository, named, by path, or cited by a section number (`\u00a7` is
    // the section sign).
    const outside = /DESIGN\.md|sglang[-_]semantics\.md|\.\.\/shared\/|\u00a7\s?\d/;
    const offenders = textFiles(kRoot)
      .filter((file) => !file.endsWith('contract-document.test.ts'))
      .filter((file) => outside.test(readFileSync(file, 'utf8')))
      .map((file) => relative(kRoot, file));
    expect(offenders).toEqual([]);
  });
});
