import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('a change to the history file alone does not make HEAD dirty; any other change does', () => {
    const repo = mkdtempSync(join(tmpdir(), 'kvfuzz-git-'));
    const run = (...args: string[]): void => {
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, stdio: 'ignore' });
    };
    run('init', '-q');
    mkdirSync(join(repo, 'history'));
    const history = join(repo, 'history', 'history.jsonl');
    writeFileSync(history, '');
    writeFileSync(join(repo, 'code.ts'), 'export const a = 1;\n');
    run('add', '.');
    run('commit', '-qm', 'first');
    writeFileSync(history, '{}\n');
    expect(readGitCommit(repo, 'HEAD', [history]).dirty).toBe(false);
    expect(readGitCommit(repo, 'HEAD').dirty).toBe(true);
    writeFileSync(join(repo, 'code.ts'), 'export const a = 2;\n');
    expect(readGitCommit(repo, 'HEAD', [history]).dirty).toBe(true);
    // A history file outside the repository is no reason to fail.
    expect(readGitCommit(repo, 'HEAD', [join(tmpdir(), 'elsewhere.jsonl')]).dirty).toBe(true);
  });

  it('an unknown revision is a GitCommitError naming it', () => {
    expect(() => readGitCommit(kHere, 'no-such-revision-kvfuzz')).toThrow(GitCommitError);
    expect(() => readGitCommit(kHere, 'no-such-revision-kvfuzz')).toThrow(/git cannot resolve "no-such-revision-kvfuzz"/);
  });
});
