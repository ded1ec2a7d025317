/**
 * The paging issue's end-to-end test: 164 generated reports and a question that needs every report.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextWindowExceededError } from '../packages/pagewise/src/index.js';
import { SqliteSessionStore } from '../packages/sqlite/src/index.js';
import {
  generateQuestions,
  generateReports,
  inMemoryCorpus,
  isCorrect,
  runReportAnalysis,
} from '../packages/lab/src/scenarios/report-analysis/index.js';

describe('report analysis end to end', () => {
  const reports = generateReports(164, 11);
  const corpus = inMemoryCorpus(reports);
  const questions = generateQuestions(reports, 11, 5);

  it('paging: answers every kind of question correctly, no report body in any persisted event, requests within budget', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-ra-'));
    const store = new SqliteSessionStore({ path: path.join(dir, 'ra.db') });
    const budget = 32_000;
    for (const question of questions) {
      expect(question.needsAllReports).toBe(true);
      const result = await runReportAnalysis({
        corpus,
        question: question.text,
        strategy: 'paging',
        store,
        ramBudgetTokens: budget,
      });
      expect(isCorrect(result.text, question.gold), `${question.text}\n→ ${result.text}`).toBe(true);
      expect(result.text).toMatch(/offline model/);
      for (const entry of result.ledger.entries) expect(entry.parts.paged).toBeLessThanOrEqual(budget);
      const persisted = await store.getSession(result.session);
      const json = JSON.stringify(persisted!.events);
      // Every report's body is distinctive in its prose and its KPI table; none may appear in events.
      for (const report of reports) {
        // Compare in JSON-escaped form, as the text appears inside the serialized events.
        const table = JSON.stringify(report.body.slice(report.body.indexOf('## Key figures'))).slice(1, -1);
        expect(json.includes(table)).toBe(false);
        const sentence = JSON.stringify(report.body.split('\n').find((l) => l.length > 120)!).slice(1, -1);
        expect(json.includes(sentence)).toBe(false);
      }
      expect(json).not.toContain('temp:');
      // The durable running result is there, small.
      expect(String(persisted!.state['result:answer-partial']).length).toBeLessThan(500);
    }
    await store.close();
  });

  it('none: correct where it fits, with a far higher peak; fails at 164 reports with a 128k window', async () => {
    const small = generateReports(40, 11);
    const smallCorpus = inMemoryCorpus(small);
    const question = generateQuestions(small, 3, 1)[0]!;
    const none = await runReportAnalysis({ corpus: smallCorpus, question: question.text, strategy: 'none' });
    const paging = await runReportAnalysis({ corpus: smallCorpus, question: question.text, strategy: 'paging' });
    expect(isCorrect(none.text, question.gold)).toBe(true);
    expect(isCorrect(paging.text, question.gold)).toBe(true);
    expect(none.ledger.summary.peakPromptTokens).toBeGreaterThan(3 * paging.ledger.summary.peakPromptTokens);
    // The naive baseline carries the bodies in history.
    const table0 = JSON.stringify(small[0]!.body.slice(small[0]!.body.indexOf('## Key figures'))).slice(1, -1);
    expect(JSON.stringify(none.session.events).includes(table0)).toBe(true);

    const err = await runReportAnalysis({ corpus, question: questions[0]!.text, strategy: 'none' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ContextWindowExceededError);
    expect((err as ContextWindowExceededError).windowTokens).toBe(128_000);
  });

  it('the offline analyst fails when a report is missing from its prompt', async () => {
    // Drop one report's text from the corpus source while keeping its URI in the plan.
    const broken = {
      ...corpus,
      source: {
        ...corpus.source,
        load: async (uri: string) => {
          const doc = await corpus.source.load(uri);
          return uri === corpus.uris[7] ? { ...doc, body: 'This report is unavailable.' } : doc;
        },
      },
    };
    const question = questions[0]!;
    const result = await runReportAnalysis({ corpus: broken, question: question.text, strategy: 'paging' });
    expect(isCorrect(result.text, question.gold)).toBe(false);
  });
});
