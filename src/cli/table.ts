// Plain-text tables for the CLI: a header, a rule, left-aligned columns as wide as their widest
// cell (numbers right-aligned), no colours (the output is often piped).
export type Cell = string | number | boolean | null | undefined;

export function table(header: string[], rows: Cell[][]): string {
  if (rows.length === 0) return '(none)';
  const text = (v: Cell) => (v === null || v === undefined ? '' : String(v));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => text(r[i]).length)));
  const line = (cells: Cell[], numeric: boolean[]) =>
    cells
      .map((v, i) => (numeric[i] ? text(v).padStart(widths[i]) : text(v).padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const numeric = header.map((_, i) => rows.every((r) => typeof r[i] === 'number'));
  return [line(header, numeric), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => line(r, numeric))].join('\n');
}
