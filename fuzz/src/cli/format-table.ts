/** A plain text table: a header row, a rule, and rows; numbers right-aligned. */
export function formatTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, c) => Math.max(...cells.map((row) => (row[c] ?? '').length)));
  const line = (row: readonly string[], source: readonly (string | number)[]): string =>
    row.map((cell, c) => (typeof source[c] === 'number' ? cell.padStart(widths[c] as number) : cell.padEnd(widths[c] as number))).join('  ').trimEnd();
  return [line(cells[0] as string[], header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((row, i) => line(cells[i + 1] as string[], row))].join('\n');
}
