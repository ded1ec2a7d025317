import { describe, expect, it } from 'vitest';
import { fileOfUri, readFooter } from './analyze.js';

describe('the analyze footer', () => {
  it('counts files as documents and PDF pages and sheets as their parts', () => {
    const all = ['a.pdf#1', 'a.pdf#2', 'a.pdf#3', 'b.pdf#1', 'notes.md', 'book.xlsx#Costs', 'book.xlsx#Staff'];
    expect(readFooter(['a.pdf#2', 'a.pdf#3', 'book.xlsx#Costs'], all)).toBe(
      'Read 2 of 4 documents (2 of 4 PDF pages, 1 of 2 sheets)',
    );
    expect(readFooter(['notes.md'], ['notes.md', 'other.txt'])).toBe('Read 1 of 2 documents');
  });

  it('keeps a # that is part of a plain file name', () => {
    expect(fileOfUri('notes#2.md')).toBe('notes#2.md');
    expect(fileOfUri('dir/q3.PDF#12')).toBe('dir/q3.PDF');
  });
});
