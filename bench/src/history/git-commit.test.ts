import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GitCommitError } from './errors.js';
import { readGitCommit } from './git-commit.js';

const kHere = fileURLToPath(new URL('.', import.meta.url));

describe('bench:history,git', () => {
  it('names the checked-out commit: full sha, ISO date, subject', () => {
    const commit = readGitCommit(kHere);
    expect(commit.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(Number.isNaN(Date.parse(commit.date))).toBe(false);
    expect(typeof commit.dirty).toBe('boolean');
  });

  it('an unknown revision is a GitCommitError naming it', () => {
    expect(() => readGitCommit(kHere, 'no-such-revision-kvfuzz')).toThrow(GitCommitError);
    expect(() => readGitCommit(kHere, 'no-such-revision-kvfuzz')).toThrow(/git cannot resolve "no-such-revision-kvfuzz"/);
  });
});
