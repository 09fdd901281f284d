import { spawnSync } from 'node:child_process';
import { GitCommitError } from './errors.js';
import type { CommitInfo } from './types.js';

/** git answers in milliseconds; a hung git (a lock, a prompt) is cut off after this. */
const kGitTimeoutMs = 10_000;

function git(cwd: string, rev: string, args: readonly string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', timeout: kGitTimeoutMs });
  if (r.error !== undefined) throw new GitCommitError(rev, `git ${args[0]} did not run (${r.error.message})`);
  if (r.status !== 0) throw new GitCommitError(rev, `git ${args.join(' ')} exited ${r.status}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/**
 * Names a commit for the history: sha, committer date, subject, and whether tracked files
 * differ from it (only when `rev` is the checked-out HEAD; a past commit is never dirty).
 *
 * @param cwd - a directory inside the repository
 * @param rev - the revision, `HEAD` by default
 * @param notCode - absolute paths whose changes do not make the tree dirty (the history file
 *   itself: adding a record changes it, not the code a record measures)
 * @throws GitCommitError when git is missing or cannot resolve `rev`.
 */
export function readGitCommit(cwd: string, rev = 'HEAD', notCode: readonly string[] = []): CommitInfo {
  const sha = git(cwd, rev, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  const [date = '', subject = ''] = git(cwd, rev, ['log', '-1', '--format=%cI%n%s', sha]).split('\n');
  const head = git(cwd, rev, ['rev-parse', 'HEAD']);
  // git refuses a pathspec outside the work tree; such a file cannot make it dirty anyway.
  const top = notCode.length === 0 ? '' : `${git(cwd, rev, ['rev-parse', '--show-toplevel'])}/`;
  const inside = notCode.filter((path) => path.startsWith(top));
  const pathspecs = inside.length === 0 ? [] : ['--', ':/', ...inside.map((path) => `:(exclude)${path}`)];
  const dirty = sha === head && git(cwd, rev, ['status', '--porcelain', '--untracked-files=no', ...pathspecs]) !== '';
  return { sha, date, subject, dirty };
}
