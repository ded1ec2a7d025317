// Tests of the rule-based reading: report parsing, batched partial answers, answer sentences, quoting.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PagewiseError } from '../../../../pagewise/src/errors.js';
import { ADDITIVE_KPIS, KPI_NAMES, REGIONS, generateReports, type Region } from './corpus.js';
import {
  combinePartials,
  extractiveAnswer,
  findReports,
  formatAnswer,
  parsePartial,
  parseReportText,
  partialAnswer,
  serializePartial,
  type PartialAnswer,
} from './extract.js';
import {
  computeGold,
  generateQuestions,
  isCorrect,
  parseQuestion,
  questionText,
  type GoldAnswer,
  type QuestionSpec,
} from './questions.js';

describe('parseReportText', () => {
  it('reads back the facts of 200 generated reports from their markdown alone', () => {
    for (const report of generateReports(200, 31)) {
      expect(parseReportText(report.body), report.id).toEqual({
        id: report.id,
        uri: report.uri,
        title: report.title,
        company: report.company,
        region: report.region,
        quarter: report.quarter,
        segment: report.segment,
        kpis: report.kpis,
      });
    }
  });

  it('returns undefined when the header or a KPI row is missing', () => {
    const [report] = generateReports(1, 2);
    const body = report?.body ?? '';
    expect(parseReportText('Nothing to see here.')).toBeUndefined();
    expect(parseReportText(body.replace(/^Report ID:.*$/m, ''))).toBeUndefined();
    expect(parseReportText(body.replace(/^\| NPS \|.*$/m, ''))).toBeUndefined();
    expect(parseReportText(body.split('## Key figures')[0] ?? '')).toBeUndefined();
  });

  it('still reads a report whose title line was cut off', () => {
    const [report] = generateReports(1, 3);
    const parsed = parseReportText((report?.body ?? '').replace(/^# .*\n/, ''));
    expect(parsed?.kpis).toEqual(report?.kpis);
    expect(parsed?.title).toBeUndefined();
  });
});

describe('findReports', () => {
  const reports = generateReports(20, 41);

  it('finds every report in a prompt that holds several', () => {
    const prompt = `Instruction text.\n\n${reports.map((r) => `<page uri="${r.uri}">\n${r.body}</page>`).join('\n')}\nMore text.`;
    expect(findReports(prompt).map((p) => p.id)).toEqual(reports.map((r) => r.id));
    expect(findReports(prompt).map((p) => p.kpis)).toEqual(reports.map((r) => r.kpis));
  });

  it('skips a report whose table was dropped instead of borrowing the next one', () => {
    const texts = reports.map((r) => r.body);
    texts[4] = (texts[4] ?? '').split('## Key figures')[0] ?? '';
    const found = findReports(texts.join('\n'));
    expect(found.map((p) => p.id)).toEqual(reports.filter((_, i) => i !== 4).map((r) => r.id));
    expect(found.find((p) => p.id === reports[5]?.id)?.kpis).toEqual(reports[5]?.kpis);
  });
});

const regionArb = fc.constantFrom(...REGIONS);
const specArb: fc.Arbitrary<QuestionSpec> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...ADDITIVE_KPIS), fc.option(regionArb, { nil: undefined }))
    .map(([kpi, region]): QuestionSpec => (region === undefined ? { kind: 'sum', kpi } : { kind: 'sum', kpi, region })),
  fc.constantFrom(...KPI_NAMES).map((kpi): QuestionSpec => ({ kind: 'max', kpi })),
  fc
    .tuple(fc.constantFrom(...KPI_NAMES), fc.integer({ min: 1, max: 5 }))
    .map(([kpi, k]): QuestionSpec => ({ kind: 'top-k', kpi, k })),
  fc
    .tuple(fc.constantFrom(...ADDITIVE_KPIS), fc.shuffledSubarray([...REGIONS], { minLength: 2, maxLength: 2 }))
    .map(([kpi, [a, b]]): QuestionSpec => ({ kind: 'compare', kpi, regions: [a as Region, b as Region] })),
  fc.integer({ min: 0, max: 18 }).map((thresholdPct): QuestionSpec => ({ kind: 'count', thresholdPct })),
);

describe('partial answers', () => {
  // One corpus for all runs: generation is deterministic, and the property is about batch splits.
  const corpus = generateReports(80, 57);

  it('combine, over any split into batches read from text, to the direct answer', () => {
    fc.assert(
      fc.property(
        specArb,
        fc.integer({ min: 0, max: corpus.length }),
        fc.uniqueArray(fc.integer({ min: 1, max: corpus.length - 1 }), { maxLength: 12 }),
        (spec, count, cutsRaw) => {
          const reports = corpus.slice(0, count);
          const cuts = [0, ...cutsRaw.filter((c) => c < count).sort((a, b) => a - b), count];
          const partials: PartialAnswer[] = [];
          for (let batch = 0; batch + 1 < cuts.length; batch++) {
            // The batch as the offline model sees it: report bodies in a prompt, nothing else.
            const batchText = reports
              .slice(cuts[batch], cuts[batch + 1])
              .map((r) => r.body)
              .join('\n\n');
            const saved = serializePartial(partialAnswer(spec, findReports(batchText)));
            const restored = parsePartial(saved);
            expect(restored).toBeDefined();
            if (restored) partials.push(restored);
          }
          expect(combinePartials(spec, partials)).toEqual({ ...computeGold(spec, reports), read: count });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('stay small enough to keep in agent state', () => {
    const all = findReports(corpus.map((r) => r.body).join('\n'));
    fc.assert(
      fc.property(specArb, (spec) => {
        expect(serializePartial(partialAnswer(spec, all)).length).toBeLessThan(400);
      }),
    );
  });

  it('refuse to parse anything but a serialized partial', () => {
    expect(parsePartial('not json')).toBeUndefined();
    expect(parsePartial('{"kind":"sum"}')).toBeUndefined();
    expect(parsePartial('{"kind":"sum","read":-1,"matched":0,"sum":0}')).toBeUndefined();
    expect(parsePartial('{"kind":"count","read":3,"count":"2"}')).toBeUndefined();
    expect(parsePartial('{"kind":"median","read":3}')).toBeUndefined();
    expect(parsePartial('{"kind":"max","read":2,"best":{"id":"x","company":"A","value":1}}')).toBeUndefined();
    expect(parsePartial('{"kind":"count","read":3,"count":2}')).toEqual({ kind: 'count', read: 3, count: 2 });
  });

  it('refuse to combine partials of another kind of question', () => {
    const sum: PartialAnswer = { kind: 'sum', read: 1, matched: 1, sum: 5 };
    expect(() => combinePartials({ kind: 'count', thresholdPct: 3 }, [sum])).toThrowError(/cannot be combined/);
    try {
      combinePartials({ kind: 'count', thresholdPct: 3 }, [sum]);
    } catch (error) {
      expect(PagewiseError.isInstance(error)).toBe(true);
    }
  });

  it('do not rank a report twice when batches overlap', () => {
    const spec: QuestionSpec = { kind: 'top-k', kpi: 'revenue', k: 3 };
    const batch = partialAnswer(spec, corpus.slice(0, 10));
    const final = combinePartials(spec, [batch, batch]);
    expect(final.kind === 'top-k' && new Set(final.items.map((i) => i.id)).size).toBe(3);
  });
});

describe('formatAnswer', () => {
  const reports = generateReports(150, 61);

  it('writes answers that isCorrect accepts, for every generated question', () => {
    for (const seed of [1, 2, 3]) {
      for (const question of generateQuestions(reports, seed, 25)) {
        const text = formatAnswer(question.spec, question.gold);
        expect(isCorrect(text, question.gold), `${question.text}\n${text}`).toBe(true);
      }
    }
  });

  it('writes answers that isCorrect rejects against a different gold', () => {
    const wrongSum = formatAnswer({ kind: 'sum', kpi: 'revenue' }, { kind: 'sum', value: 100_001, matched: 3 });
    expect(isCorrect(wrongSum, { kind: 'sum', value: 100_000, matched: 3 })).toBe(false);
    const top: GoldAnswer = computeGold({ kind: 'top-k', kpi: 'headcount', k: 3 }, reports);
    if (top.kind !== 'top-k') throw new Error('unreachable');
    const [first, second, third] = top.items;
    if (!first || !second || !third) throw new Error('corpus too small');
    const swapped = formatAnswer(
      { kind: 'top-k', kpi: 'headcount', k: 3 },
      { kind: 'top-k', items: [second, first, third] },
    );
    expect(isCorrect(swapped, top)).toBe(false);
    const count = formatAnswer({ kind: 'count', thresholdPct: 7 }, { kind: 'count', count: 7 });
    expect(isCorrect(count, { kind: 'count', count: 8 })).toBe(false);
  });

  it('reads naturally', () => {
    expect(
      formatAnswer(
        { kind: 'sum', kpi: 'revenue', region: 'Asia Pacific' },
        { kind: 'sum', value: 1234567, matched: 12 },
      ),
    ).toBe(
      'The total revenue (USD thousands) across all reports in the Asia Pacific region is 1,234,567 (from 12 reports).',
    );
    expect(
      formatAnswer(
        { kind: 'max', kpi: 'churnRatePct' },
        { kind: 'max', best: { id: 'report-0007', company: 'Redwater Labs', value: 17.9 } },
      ),
    ).toBe('The highest churn rate (%) is in report-0007 (Redwater Labs), at 17.9%.');
    expect(
      formatAnswer(
        { kind: 'compare', kpi: 'headcount', regions: ['Middle East', 'Asia Pacific'] },
        { kind: 'compare', regions: ['Middle East', 'Asia Pacific'], totals: [900, 1200], winner: 'Asia Pacific' },
      ),
    ).toBe('Asia Pacific has the higher total headcount: 1,200, against 900 for Middle East.');
    expect(formatAnswer({ kind: 'count', thresholdPct: 5 }, { kind: 'count', count: 1 })).toBe(
      '1 report has a churn rate above 5%.',
    );
  });

  it('refuses an answer of another kind', () => {
    expect(() => formatAnswer({ kind: 'count', thresholdPct: 5 }, { kind: 'sum', value: 1, matched: 1 })).toThrowError(
      /cannot answer/,
    );
  });

  it('answers end to end from question text and report text alone', () => {
    const question = generateQuestions(reports, 9, 5).find((x) => x.kind === 'compare');
    const spec = question && parseQuestion(question.text);
    if (!question || !spec) throw new Error('no compare question');
    const halves = [reports.slice(0, 70), reports.slice(70)].map((half) =>
      serializePartial(partialAnswer(spec, findReports(half.map((r) => r.body).join('\n')))),
    );
    const answer = formatAnswer(
      spec,
      combinePartials(
        spec,
        halves.map((h) => parsePartial(h)).filter((p) => p !== undefined),
      ),
    );
    expect(isCorrect(answer, question.gold)).toBe(true);
    expect(questionText(spec)).toBe(question.text);
  });
});

describe('extractiveAnswer', () => {
  const texts = [
    'Report ID: report-0001 | Company: A | Region: Middle East | Quarter: 2025-Q1 | Segment: Retail\n\nSales were flat. Supply chain disruption remains the main risk. A second risk is the supply of parts. The canteen was repainted.',
    'A page from reports/report-0002.md\n\nNothing about that here. Supply costs rose. Weather was mild.',
    'Report ID: report-0003 | Company: C | Region: Middle East | Quarter: 2025-Q1 | Segment: Retail\n\nThe canteen was repainted.',
  ];

  it('quotes the best-matching sentences of each report, prefixed with its uri', () => {
    const answer = extractiveAnswer('What is the main supply chain risk?', texts);
    expect(answer.split('\n')).toEqual([
      'reports/report-0001.md: Supply chain disruption remains the main risk. A second risk is the supply of parts.',
      'reports/report-0002.md: Supply costs rose.',
    ]);
  });

  it('limits the sentences per report and says so when nothing matches', () => {
    expect(extractiveAnswer('main supply chain risk', texts, { sentencesPerReport: 1 }).split('\n')[0]).toBe(
      'reports/report-0001.md: Supply chain disruption remains the main risk.',
    );
    expect(extractiveAnswer('quantum entanglement', texts)).toBe(
      'No sentence in the 3 report texts matches the question.',
    );
  });

  it('can quote a KPI table row of a generated report', () => {
    const [report] = generateReports(1, 77);
    const answer = extractiveAnswer('What was the NPS?', [report?.body ?? '']);
    expect(answer.startsWith(`${report?.uri}: `)).toBe(true);
    expect(answer).toContain(`NPS: ${report?.kpis.nps}.`);
  });
});
