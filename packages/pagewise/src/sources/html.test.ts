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

  it('keeps table rows on their own lines with cells in columns', () => {
    const lines = text.split('\n');
    expect(lines.some((line) => /^Region\s+Sales$/.test(line))).toBe(true);
    expect(lines.some((line) => /^North\s+120$/.test(line))).toBe(true);
  });

  it('gives an empty title when the page has none', () => {
    expect(htmlToReadableText('<p>Just text</p>')).toEqual({ title: '', text: 'Just text' });
  });
});
