/**
 * The CLI end to end through main(): corpus generate, analyze (stored in SQLite), sessions list/show/delete,
 * help, version and error exits.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

describe('pagewise CLI', () => {
  it('generates a corpus, analyses it offline, and shows the stored session', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-'));
    const corpus = path.join(dir, 'reports');
    const db = path.join(dir, 'pw.db');
    expect((await cli('corpus', 'generate', '--n', '25', '--out', corpus, '--seed', '3')).out).toMatch(
      /Wrote 25 reports/,
    );
    const analysed = await cli('analyze', corpus, 'How many reports have a churn rate above 5%?', '--db', db);
    expect(analysed.code).toBe(0);
    expect(analysed.out).toMatch(/offline model/);
    expect(analysed.out).toMatch(/\d+ reports have a churn rate above 5%/);
    expect(analysed.out).toMatch(/Read 25 of 25 documents · model offline \(rules, not an LLM\) · tokens: peak [\d,]+/);
    const id = /session ([0-9a-f-]{36})/.exec(analysed.out)![1]!;
    const listed = await cli('sessions', 'list', '--db', db);
    expect(listed.out).toContain(id);
    const shown = await cli('sessions', 'show', id, '--db', db);
    expect(shown.out).toMatch(/get_reports/);
    expect(shown.out).toMatch(/result:answer-partial/);
    expect((await cli('sessions', 'delete', id, '--db', db)).code).toBe(0);
    expect((await cli('sessions', 'show', id, '--db', db)).code).toBe(2);
  });

  it('prints help and version, and gives clear errors for bad input', async () => {
    expect((await cli('--help')).out).toMatch(/Commands:[\s\S]*analyze[\s\S]*bench/);
    expect((await cli('--version')).out).toMatch(/^\d+\.\d+\.\d+$/);
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/Unknown command "frobnicate"/);
    const badFlag = await cli('analyze', '--nope');
    expect(badFlag.code).toBe(2);
    expect(badFlag.err).toMatch(/pagewise analyze --help/);
    const missing = await cli('analyze', '/definitely/not/here', 'q?');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/is not a folder/);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-'));
    writeFileSync(path.join(dir, 'a.md'), '# A\n\nSome text.');
    const provider = await cli('analyze', dir, 'q?', '--model', 'mistral:large', '--db', path.join(dir, 'x.db'));
    expect(provider.code).toBe(2);
    expect(provider.err).toMatch(/Unknown model provider "mistral"/);
  });
});

describe('finding 6 (issue 18): terminal escapes in stored content', () => {
  it('sessions show prints no escape sequence from stored content, OSC 52 included', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-esc-'));
    writeFileSync(path.join(dir, 'a.md'), '# A\n\nSales rose.');
    const db = path.join(dir, 'pw.db');
    const hostile = 'sales \u001b]52;c;ZXZpbA==\u0007 \u001b[31mred\u001b[0m \u001b]0;title\u0007?';
    const analysed = await cli('analyze', dir, hostile, '--db', db);
    expect(analysed.code).toBe(0);
    const id = /session ([0-9a-f-]{36})/.exec(analysed.out)![1]!;
    const shown = await cli('sessions', 'show', id, '--db', db);
    expect(shown.out).toContain('user: sales');
    // eslint-disable-next-line no-control-regex
    expect(shown.out).not.toMatch(/[\u001b\u0007\u009b\u009d]/);
    // eslint-disable-next-line no-control-regex
    expect(analysed.out + analysed.err).not.toMatch(/[\u001b\u0007]/);
  });
});
