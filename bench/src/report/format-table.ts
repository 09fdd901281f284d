/** A plain text table: a header row, a rule, and rows; numbers right-aligned. */
export function formatTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, c) => Math.max(...cells.map((row) => (row[c] ?? '').length)));
  const line = (row: readonly string[], source: readonly (string | number)[]): string =>
    row.map((cell, c) => (typeof source[c] === 'number' ? cell.padStart(widths[c] as number) : cell.padEnd(widths[c] as number))).join('  ').trimEnd();
  return [line(cells[0] as string[], header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((row, i) => line(cells[i + 1] as string[], row))].join('\n');
}

/** A duration per call in the unit that keeps 3–4 significant digits (ns, µs, ms). */
export function formatNs(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(ns < 10 ? 2 : 1)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(2)} µs`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}

/** A ratio with its interval: `1.012 [0.998, 1.027]`. */
export function formatInterval(ratio: number, low: number, high: number): string {
  return `${ratio.toFixed(3)} [${low.toFixed(3)}, ${high.toFixed(3)}]`;
}
