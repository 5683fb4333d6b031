/** Rows as a compact text table for the model; long cells are cut, blobs shown by size. */
export function formatTable(
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
  more: boolean,
): string {
  if (rows.length === 0) return `(no rows) columns: ${columns.join(', ')}`;
  const cell = (value: unknown) => {
    const text = value === null ? 'NULL' : Buffer.isBuffer(value) ? `<${value.length} bytes>` : String(value);
    return text.length > 60 ? `${text.slice(0, 59)}…` : text.replace(/\n/g, ' ');
  };
  const body = rows.map((row) => columns.map((column) => cell(row[column])));
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...body.map((line) => (line[index] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((text, index) => text.padEnd(widths[index] ?? 0))
      .join(' | ')
      .trimEnd();
  return [
    line(columns),
    widths.map((width) => '-'.repeat(width)).join('-|-'),
    ...body.map(line),
    `(${rows.length}${more ? '+' : ''} row${rows.length === 1 ? '' : 's'}${more ? `; stopped at ${rows.length}` : ''})`,
  ].join('\n');
}
