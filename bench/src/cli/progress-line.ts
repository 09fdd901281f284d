/** How often a progress line is written when stdout is not a terminal (CI logs stay short). */
const kLogIntervalMs = 5_000;
/** How often the live line is redrawn on a terminal. */
const kRedrawIntervalMs = 200;

/**
 * One live status line: redrawn in place on a terminal, printed every few seconds otherwise.
 * Writes to stderr so stdout carries only the summary (and JSON when asked).
 */
export class ProgressLine {
  private lastMs = 0;
  private drawn = false;

  /** @param write - where the line goes (stderr); tty - whether to redraw in place. */
  constructor(
    private readonly write: (s: string) => void = (s) => process.stderr.write(s),
    private readonly tty: boolean = process.stderr.isTTY === true,
  ) {}

  update(text: () => string): void {
    const now = Date.now();
    if (now - this.lastMs < (this.tty ? kRedrawIntervalMs : kLogIntervalMs)) return;
    this.lastMs = now;
    if (this.tty) {
      this.write(`\r\x1b[2K${text()}`);
      this.drawn = true;
    } else {
      this.write(`${text()}\n`);
    }
  }

  done(): void {
    if (this.drawn) this.write('\r\x1b[2K');
    this.drawn = false;
    this.lastMs = Date.now();
  }
}
