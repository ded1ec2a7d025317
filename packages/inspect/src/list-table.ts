/**
 * The inspector's list tables and index pages, built from column descriptions, so the pages of benchmark runs,
 * replay reports and the rest lay out their rows one way: a heading row, one row an item, numbers
 * right-aligned, and an index page that shows its load errors above the table or says how to open one.
 */
import { html, SafeHtml } from './html.js';

type Cell = Parameters<typeof html>[1];

/** One column of a {@link listTable}. */
export interface Column<T> {
  /** The heading. */
  head: string;
  /** Right-aligned, for numbers (class `r`). */
  numeric?: boolean;
  /** More classes of the column's cells (tests and scripts select cells by them). */
  cellClass?: string;
  /** The cell of a row; `index` is the row's place in the table. */
  cell(row: T, index: number): Cell;
}

const classAttr = (...names: (string | false | undefined)[]): SafeHtml => {
  const value = names.filter(Boolean).join(' ');
  return value ? html` class="${value}"` : new SafeHtml('');
};

/**
 * A `table.list` of `rows`, one `<tr>` a row and one `<td>` a column. `rowClass` classes a row (a lossy
 * strategy, a kind of call).
 */
export function listTable<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  options: { id?: string; className?: string; rowClass?: (row: T) => string } = {},
): SafeHtml {
  const id = options.id ? html` id="${options.id}"` : '';
  return html`<table${classAttr('list', options.className)}${id}>
    <thead>
      <tr>
        ${columns.map((column) => html`<th${classAttr(column.numeric && 'r')}>${column.head}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row, index) =>
          html`<tr${classAttr(options.rowClass?.(row))}>
            ${columns.map(
              (column) =>
                html`<td${classAttr(column.numeric && 'r', column.cellClass)}>${column.cell(row, index)}</td>`,
            )}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** What an index page says when no file was opened: what it lists, and the command that opens one. */
export interface EmptyIndex {
  /** What the page lists, in the singular: `replay report`. */
  what: string;
  /** The `pagewise inspect` flag and argument that open one. */
  open: string;
  /** What the flag takes: the command that writes it. */
  takes: SafeHtml;
}

/**
 * An index page of opened files: its title, a line for each file that did not load, then the table of the
 * loaded ones, or how to open one when none loaded.
 */
export function indexPage<T>(
  title: string,
  errors: readonly string[],
  loaded: readonly T[],
  columns: readonly Column<T>[],
  empty: EmptyIndex,
): SafeHtml {
  const table = loaded.length
    ? listTable(loaded, columns)
    : html`<p class="empty">
        No ${empty.what} opened. Start with <code>pagewise inspect ${empty.open}</code> (${empty.takes}).
      </p>`;
  return html`<h1>${title}</h1>
    ${errors.map((error) => html`<p class="err">${error}</p>`)}${table}`;
}
