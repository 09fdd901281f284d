import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script of the CI folder, without type declarations
import { kSubjectLengthMax, subjectProblem } from '../../ci/commit-subjects.mjs';

const kRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('repo:commits,subjects', () => {
  it('accepts `area: what changed` within the limit', () => {
    expect(subjectProblem('allocator-core: page-1 extend and decode merge by alloc\'s rule')).toBeNull();
    expect(subjectProblem('ci/setup.sh: one apt_step for chromium and python3-torch')).toBeNull();
    expect(subjectProblem(`fuzz: ${'x'.repeat(kSubjectLengthMax - 6)}`)).toBeNull();
  });

  it('refuses a subject one character over the limit, or without an area', () => {
    expect(subjectProblem(`fuzz: ${'x'.repeat(kSubjectLengthMax - 5)}`)).toMatch(/73 characters/);
    expect(subjectProblem('Fix the thing')).toMatch(/area: what changed/);
    expect(subjectProblem('fuzz:no space')).toMatch(/area: what changed/);
  });

  it('holds for every commit since the rule', () => {
    const run = () => execFileSync('node', ['ci/commit-subjects.mjs'], { cwd: kRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(run()).toMatch(/commit subjects keep/);
  });
});
