/** Where a CLI writes and what relative paths are relative to; tests pass their own. */
export interface CliIo {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
  /** Relative paths on the command line resolve from here (pnpm's INIT_CWD: where the user ran pnpm). */
  readonly baseDir: string;
  /** Whether stderr is a terminal (the progress line redraws in place). */
  readonly tty: boolean;
}

/** The real process's streams. */
export const kProcessIo: CliIo = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  baseDir: process.env['INIT_CWD'] ?? process.cwd(),
  tty: process.stderr.isTTY === true,
};
