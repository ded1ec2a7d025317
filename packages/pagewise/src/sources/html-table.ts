/**
 * HTML tables as delimited rows: one line a `<tr>`, cells joined by ` | `, as the CSV and spreadsheet readers write
 * them, so a row keeps its cells apart and under the column headers of the table's first rows (aligned columns
 * lose both: a header cell of two words reads as two columns, a row of words as prose). A `rowspan` is not spread
 * down: the cells after it in the rows below move one column left.
 */
import type { FormatCallback } from 'html-to-text';

/** A cell as html-to-text hands a table's rows to its printer. */
interface TablePrinterCell {
  colspan: number;
  rowspan: number;
  text: string;
}

/** A cell of the table's grid: its text, and the span it is part of (a cell spanning n columns fills n). */
interface GridCell {
  text: string;
  /** The cell it was spread from: the same object in every column a `colspan` covers. */
  source: TablePrinterCell;
}

const CURRENCY_ONLY = /^[$€£¥]$/u;
const CLOSING_ONLY = /^[)%]+$/u;

/** One cell's text on one line. */
const cellText = (cell: TablePrinterCell): string => cell.text.replace(/\s+/gu, ' ').trim();

/** A cell's text kept on its own lines, each line's spaces collapsed. */
const multilineText = (text: string): string =>
  text
    .split('\n')
    .map((line) => line.replace(/\s+/gu, ' ').trim())
    .filter(Boolean)
    .join('\n');

/** Columns the spans of one row spread to, at most: HTML caps `colspan` at 1,000, and a hostile page must not build more. */
const MAX_COLUMNS = 1000;

/** The rows with every cell spread over the columns it spans (up to {@link MAX_COLUMNS} a row). */
function grid(rows: readonly TablePrinterCell[][]): GridCell[][] {
  return rows.map((row) => {
    const out: GridCell[] = [];
    for (const cell of row) {
      const text = cellText(cell);
      // Every cell keeps a column of its own; only spans stop at the cap.
      const span = Math.max(1, Math.min(cell.colspan, MAX_COLUMNS - out.length));
      for (let column = 0; column < span; column += 1) out.push({ text, source: cell });
    }
    return out;
  });
}

/**
 * A sign that a filing sets in a column of its own (`$` before a value, `)` or `%` after it) joins the value beside
 * it, so the value's column holds the whole value.
 */
function joinSigns(row: GridCell[]): void {
  row.forEach((cell, index) => {
    const next = row.slice(index + 1).find((other) => other.text !== '');
    if (CURRENCY_ONLY.test(cell.text) && next && /^[(\d-]/u.test(next.text)) {
      next.text = `${cell.text}${next.text}`;
      cell.text = '';
    }
    const previous = row.slice(0, index).findLast((other) => other.text !== '');
    if (CLOSING_ONLY.test(cell.text) && previous && /[\d.]$/u.test(previous.text)) {
      previous.text = `${previous.text}${cell.text}`;
      cell.text = '';
    }
  });
}

/**
 * A table as ` | `-delimited lines. Columns that hold no cell of their own (spacers, the sign columns once joined,
 * the extra columns of a spanning header) are dropped; a spanning cell's text is written once, in the first column
 * of its span that is kept.
 */
export function tableRowsText(rows: readonly TablePrinterCell[][]): string {
  const cells = grid(rows);
  for (const row of cells) joinSigns(row);
  const width = Math.max(0, ...cells.map((row) => row.length));
  const kept = Array.from({ length: width }, (_, column) =>
    cells.some((row) => {
      const cell = row[column];
      return cell !== undefined && cell.text !== '' && Math.max(1, cell.source.colspan) === 1;
    }),
  );
  // A spanning cell none of whose columns is kept keeps its first column.
  for (const row of cells) {
    const spans = new Map<TablePrinterCell, number[]>();
    row.forEach((cell, column) => {
      if (cell.text === '') return;
      const columns = spans.get(cell.source);
      if (columns) columns.push(column);
      else spans.set(cell.source, [column]);
    });
    for (const columns of spans.values()) if (!columns.some((at) => kept[at])) kept[columns[0]!] = true;
  }
  return cells
    .map((row, index) => {
      // A row of one cell that holds lines of its own (a layout table around a data table) is written as they are.
      const own = rows[index]!.filter((cell) => cell.text.trim() !== '');
      if (own.length === 1 && own[0]!.text.includes('\n')) return multilineText(own[0]!.text);
      const written = new Set<TablePrinterCell>();
      const out: string[] = [];
      row.forEach((cell, column) => {
        if (!kept[column]) return;
        out.push(written.has(cell.source) ? '' : cell.text);
        if (cell.text !== '') written.add(cell.source);
      });
      return out.join(' | ').trimEnd();
    })
    .filter((line) => line.replace(/[|\s]/gu, '') !== '')
    .join('\n');
}

/** The html-to-text formatter of a `<table>`: its rows as {@link tableRowsText} writes them. */
export const delimitedTable: FormatCallback = (elem, walk, builder) => {
  builder.openTable();
  const walkTable = (node: typeof elem): void => {
    if (node.type !== 'tag') return;
    if (['thead', 'tbody', 'tfoot', 'center'].includes(node.name ?? '')) {
      for (const child of node.children ?? []) walkTable(child);
      return;
    }
    if (node.name !== 'tr') return;
    builder.openTableRow();
    for (const cell of node.children ?? []) {
      if (cell.type !== 'tag' || (cell.name !== 'td' && cell.name !== 'th')) continue;
      builder.openTableCell();
      walk(cell.children ?? [], builder);
      builder.closeTableCell({ colspan: Number(cell.attribs?.colspan) || 1, rowspan: 1 });
    }
    builder.closeTableRow();
  };
  for (const child of elem.children ?? []) walkTable(child);
  builder.closeTable({ tableToString: tableRowsText, leadingLineBreaks: 2, trailingLineBreaks: 2 });
};
