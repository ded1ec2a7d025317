import { existsSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoCommand } from './demo.js';

describe('pagewise demo', () => {
  it('explains none and paging before the table, reports progress, and keeps its corpus and sessions', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await demoCommand(
      ['--n', '12', '--questions', '1'],
      (s) => out.push(s),
      (s) => err.push(s),
    );
    const text = out.join('\n');
    expect(code).toBe(0);
    expect(text).toMatch(/"none" returns report bodies into the history[\s\S]*that failure is the point/);
    expect(text.indexOf('"paging" keeps bodies')).toBeLessThan(text.indexOf('| question |'));
    expect(err.join('\n')).toMatch(/demo: question 1\/1, strategy paging: reading 12 reports/);
    const db = /pagewise sessions list --db (\S+)/.exec(text)?.[1];
    expect(db && existsSync(db)).toBe(true);
    expect(text).toMatch(/pagewise sessions show [0-9a-f-]{36} --db /);
    rmSync(/kept in (\S+)\. To look/.exec(text)![1]!, { recursive: true, force: true });
  });

  it('gives the cost in dollars with caching beside the tokens, naming the prices and their date', async () => {
    const out: string[] = [];
    const code = await demoCommand(
      ['--n', '12', '--questions', '1', '--price-as', 'openai:gpt-4.1'],
      (s) => out.push(s),
      () => {},
    );
    const text = out.join('\n');
    expect(code).toBe(0);
    expect(text).toContain('| cache hit | cost (USD, cached, as openai:gpt-4.1) |');
    const rows = text.split('\n').filter((line) => /^\| q\S* \| (none|paging) \|/.test(line));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatch(/\| \d+% \| \$\d+\.\d{4} \|/);
    expect(text).toMatch(/Cost: openai:gpt-4\.1 list prices as of \d{4}-\d\d-\d\d \(to be checked\)/);
    rmSync(/kept in (\S+)\. To look/.exec(text)![1]!, { recursive: true, force: true });
  });

  it('refuses a --price-as with no built-in price, naming the flag', async () => {
    await expect(
      demoCommand(
        ['--price-as', 'acme:big'],
        () => {},
        () => {},
      ),
    ).rejects.toThrow(/--price-as acme:big has no built-in price/);
  });
});
