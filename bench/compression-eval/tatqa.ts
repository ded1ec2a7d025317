/**
 * TAT-QA pages and their grader. A context becomes a page in two forms, as a tool meets it: the table
 * as markdown, or one cell per line as PDF text extraction gives it; then the paragraphs. Answer-evidence
 * recall is the share of what the answer needs that survives compression: each answer span, and each
 * number of the derivation; a number found in the table counts only with its row label before it in the
 * same row and its column header somewhere in the text (a number without its label is not evidence).
 */
import type { TatContext, TatQuestion } from './data.js';

/** How the table is written on the page. */
export type TableForm = 'markdown' | 'cells';

/** A rendered page, with the text of each table row as written on it (for the grader). */
export interface TatPage {
  text: string;
  /** Per table row, the cells written on the page, in order, with their column. */
  rows: { cells: { col: number; text: string }[]; rendered: string[] }[];
}

const clean = (cell: string): string => cell.replace(/\s+/gu, ' ').trim();

/** Renders a context as a page in `form`. */
export function renderTatPage(context: TatContext, form: TableForm): TatPage {
  const table = context.table.table.map((row) => row.map(clean));
  const rows: TatPage['rows'] = [];
  const lines: string[] = [];
  table.forEach((row, rowIndex) => {
    if (form === 'markdown') {
      const rendered = row.map((c) => c.replace(/\|/gu, '/'));
      lines.push(`| ${rendered.join(' | ')} |`);
      // A row's rendered prefix (label through a cell) is a prefix of its line.
      rows.push({
        cells: rendered.map((text, col) => ({ col, text })),
        rendered: rendered.map((_, i) => `| ${rendered.slice(0, i + 1).join(' | ')}`),
      });
      if (rowIndex === 0) lines.push(`|${row.map(() => ' --- ').join('|')}|`);
    } else {
      const cells = row.map((text, col) => ({ col, text })).filter((c) => c.text !== '');
      lines.push(...cells.map((c) => c.text));
      rows.push({
        cells,
        rendered: cells.map((_, index) =>
          cells
            .slice(0, index + 1)
            .map((c) => c.text)
            .join('\n'),
        ),
      });
    }
  });
  const paragraphs = [...context.paragraphs].sort((a, b) => a.order - b.order).map((p) => p.text.trim());
  return { text: [lines.join('\n'), ...paragraphs].join('\n\n'), rows };
}

/** One thing the answer needs. */
export type EvidenceItem =
  | { kind: 'text'; text: string }
  | { kind: 'number'; value: number }
  | { kind: 'cell'; row: number; col: number; label: string; header: string };

const NUMBER = /\(?-?\$?\d[\d,]*(?:\.\d+)?%?\)?/gu;

function numericValue(text: string): number | undefined {
  const digits = text.replace(/[$,%()€£\s]/gu, '').replace(/^-/u, '');
  if (!/^\d+(?:\.\d+)?$/u.test(digits)) return undefined;
  return Number(digits);
}

function isValue(cell: string): boolean {
  return cell !== '' && numericValue(cell.replace(/[^\d.,$%()-]/gu, '')) !== undefined && /\d/u.test(cell);
}

/**
 * Rows before the first row that has a label in its first cell and a number in another: the column
 * headers. Decided from the data alone, not from what any compressor does.
 */
function headerRowCount(table: string[][]): number {
  const first = table.findIndex((row) => (row[0] ?? '') !== '' && row.slice(1).some((c) => /\d/u.test(c)));
  return first < 0 ? 0 : first;
}

function columnHeader(table: string[][], headers: number, col: number): string {
  for (let headerRow = headers - 1; headerRow >= 0; headerRow -= 1) {
    const cell = table[headerRow]?.[col] ?? '';
    if (cell !== '') return cell;
  }
  return '';
}

function findCells(
  table: string[][],
  headers: number,
  match: (cell: string) => boolean,
): { row: number; col: number }[] {
  const out: { row: number; col: number }[] = [];
  table.forEach((row, rowIndex) => {
    if (rowIndex < headers) return;
    row.forEach((cell, column) => {
      if (column > 0 && match(cell)) out.push({ row: rowIndex, col: column });
    });
  });
  return out;
}

/**
 * What a question's answer needs. Spans found as table values become cell items (with their label and
 * header); other spans text items. Each number of an arithmetic derivation becomes a cell item when the
 * table holds it, else a number item. A list of alternatives is returned per item: any one satisfies it.
 */
export function evidenceOf(context: TatContext, question: TatQuestion): EvidenceItem[][] {
  const table = context.table.table.map((row) => row.map(clean));
  const headers = headerRowCount(table);
  const cellItems = (match: (cell: string) => boolean): EvidenceItem[] =>
    findCells(table, headers, match).map(({ row, col }) => ({
      kind: 'cell',
      row,
      col,
      label: table[row]?.[0] ?? '',
      header: columnHeader(table, headers, col),
    }));
  const items: EvidenceItem[][] = [];
  if (question.answer_type === 'arithmetic') {
    for (const numberMatch of question.derivation.matchAll(NUMBER)) {
      const value = numericValue(numberMatch[0]);
      if (value === undefined) continue;
      const cells = cellItems((cell) => isValue(cell) && numericValue(cell.replace(/[^\d.,$%()-]/gu, '')) === value);
      items.push(cells.length > 0 ? cells : [{ kind: 'number', value }]);
    }
    return items;
  }
  const spans =
    question.answer_type === 'count'
      ? question.derivation.split('##')
      : Array.isArray(question.answer)
        ? question.answer
        : [String(question.answer)];
  for (const span of spans.map(clean).filter((s) => s !== '')) {
    const cells = question.answer_from === 'text' ? [] : cellItems((cell) => cell === span && isValue(cell));
    if (cells.length > 0) {
      items.push(cells);
      continue;
    }
    // A row label as the answer ("which items are listed"): the label itself is the evidence.
    items.push([{ kind: 'text', text: span }]);
  }
  return items;
}

const normalize = (text: string): string => text.replace(/\s+/gu, ' ').trim().toLowerCase();

function numbersIn(text: string): Set<number> {
  const out = new Set<number>();
  for (const numberMatch of text.replace(/(\d),(?=\d{3}\b)/gu, '$1').matchAll(/\d+(?:\.\d+)?/gu))
    out.add(Number(numberMatch[0]));
  return out;
}

/** Whether `output` satisfies one evidence item of `page`. */
export function satisfies(page: TatPage, output: string, item: EvidenceItem, numbers: Set<number>): boolean {
  switch (item.kind) {
    case 'text':
      return normalize(output).includes(normalize(item.text));
    case 'number':
      return numbers.has(item.value);
    case 'cell': {
      const row = page.rows[item.row];
      const at = row?.cells.findIndex((c) => c.col === item.col) ?? -1;
      const prefix = row?.rendered[at];
      // The row from its label through the cell, as written: the number is read with its label and the
      // cells before it (which say which column it is in).
      if (prefix === undefined || !output.includes(prefix)) return false;
      return item.header === '' || output.includes(item.header);
    }
  }
}

/** Recall of one question: satisfied items / items (undefined when the answer needs nothing we can check). */
export function questionRecall(page: TatPage, output: string, evidence: EvidenceItem[][]): number | undefined {
  if (evidence.length === 0) return undefined;
  const numbers = numbersIn(output);
  const kept = evidence.filter((alternatives) => alternatives.some((item) => satisfies(page, output, item, numbers)));
  return kept.length / evidence.length;
}
