/**
 * Errors of `pnpm bench:history`. Each names the file and the field (or line) that is wrong and
 * sets a stable `name` and `code`.
 *
 * @packageDocumentation
 */

/** An input file (`--bench`, `--fuzz`, `--kill-table`) that is unreadable or not the expected document. */
export class HistoryInputError extends Error {
  readonly code = 'HISTORY_INPUT';
  /**
   * @param file - the input as given on the command line
   * @param problem - what is wrong, naming the field, e.g. `ratios[3].ciLow is "x", not a positive number`
   */
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'HistoryInputError';
  }
}

/** The history file itself is unreadable or holds a line that is not a `bench-history/1` record. */
export class HistoryFileError extends Error {
  readonly code = 'HISTORY_FILE';
  /**
   * @param file - the history file
   * @param line - 1-based line number, or null when the whole file is the problem
   * @param problem - what is wrong, naming the field
   */
  constructor(
    readonly file: string,
    readonly line: number | null,
    problem: string,
  ) {
    super(`${file}${line === null ? '' : ` line ${line}`}: ${problem}`);
    this.name = 'HistoryFileError';
  }
}

/** `add` of a commit + mode that the history already holds, without `--replace`. */
export class DuplicateRecordError extends Error {
  readonly code = 'HISTORY_DUPLICATE';
  constructor(
    readonly sha: string,
    readonly mode: string,
    readonly line: number,
    recordedAt: string,
  ) {
    super(`commit ${sha.slice(0, 12)} (${mode}) is already recorded on line ${line} (recorded ${recordedAt}); pass --replace to replace it`);
    this.name = 'DuplicateRecordError';
  }
}

/** git could not name the commit (not a repository, unknown revision, git missing). */
export class GitCommitError extends Error {
  readonly code = 'HISTORY_GIT';
  constructor(
    readonly rev: string,
    problem: string,
  ) {
    super(`git cannot resolve ${JSON.stringify(rev)}: ${problem}`);
    this.name = 'GitCommitError';
  }
}
