// Tests of the HTML-to-text conversion: what is kept, what is skipped, and how tables come out.
import { describe, expect, it } from 'vitest';
import { htmlToReadableText } from './html.js';

const page = `<!doctype html><html><head><title>  Quarterly   &amp; Annual </title>
<style>.hidden { display: none }</style><script>window.secret = "tracking-code";</script></head>
<body><nav><a href="/">Home</a> <a href="/about">About us</a></nav>
<h1>Results</h1><p>Revenue <b>grew</b> by <a href="https://example.com/r">ten percent</a>.<img src="chart.png" alt="chart-alt"></p>
<table><tr><th>Region</th><th>Sales</th></tr><tr><td>North</td><td>120</td></tr><tr><td>South</td><td>80</td></tr></table>
<noscript>enable-javascript</noscript></body></html>`;

describe('htmlToReadableText', () => {
  const { title, text } = htmlToReadableText(page);

  it('takes the title from <title>, entities decoded and whitespace collapsed', () => {
    expect(title).toBe('Quarterly & Annual');
  });

  it('keeps the visible body text without markup or link addresses', () => {
    expect(text).toContain('Results');
    expect(text).toContain('Revenue grew by ten percent.');
    expect(text).not.toMatch(/<|https:\/\/example\.com/);
  });

  it('skips scripts, styles, navigation, images and noscript', () => {
    for (const hidden of ['tracking-code', 'display: none', 'About us', 'chart-alt', 'enable-javascript']) {
      expect(text).not.toContain(hidden);
    }
  });

  it('keeps table rows on their own lines with cells delimited', () => {
    const lines = text.split('\n');
    expect(lines).toContain('Region | Sales');
    expect(lines).toContain('North | 120');
    expect(lines).toContain('South | 80');
  });

  it('keeps a header cell of several words one cell, and a layout table around a data table off one line', () => {
    const quarters =
      '<table><tr><td><table><thead><tr><th>Metric</th><th>Q1 2024</th><th>Q2 2024</th></tr></thead>' +
      '<tbody><tr><td>Operating margin</td><td><p>7.9%</p></td><td>8.6%</td></tr></tbody></table></td></tr></table>';
    expect(htmlToReadableText(quarters).text.split('\n')).toEqual([
      'Metric | Q1 2024 | Q2 2024',
      'Operating margin | 7.9% | 8.6%',
    ]);
  });

  it('joins sign columns to their values and drops spacer columns, a spanning header written once', () => {
    const filing =
      '<table><tr><td></td><td colspan="2">June 24, 2023</td><td></td><td colspan="2">June 25, 2022</td></tr>' +
      '<tr><td>Net sales</td><td>$</td><td>81,797</td><td></td><td>$</td><td>82,959</td></tr>' +
      '<tr><td>Margin</td><td></td><td>(1.2</td><td>)%</td><td></td><td>3.4</td><td>%</td></tr></table>';
    expect(htmlToReadableText(filing).text.split('\n')).toEqual([
      '| June 24, 2023 | June 25, 2022',
      'Net sales | $81,797 | $82,959',
      'Margin | (1.2)% | 3.4%',
    ]);
  });

  it('bounds the columns a hostile colspan spreads to', () => {
    const hostile = `<table><tr><td colspan="100000000">wide</td><td>next</td></tr>${'<tr><td>a</td><td>1</td></tr>'.repeat(50)}</table>`;
    const lines = htmlToReadableText(hostile).text.split('\n');
    expect(lines[0]).toMatch(/^wide \|[ |]*\| next$/u);
    expect(lines[1]).toBe('a | 1');
  });

  it('gives an empty title when the page has none', () => {
    expect(htmlToReadableText('<p>Just text</p>')).toEqual({ title: '', text: 'Just text' });
  });
});
