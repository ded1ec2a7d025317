// Tests of the questions: gold answers on a hand-checked corpus, text round trips, answer checking.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PagewiseError } from '../../../../pagewise/src/errors.js';
import { ADDITIVE_KPIS, KPI_NAMES, REGIONS, generateReports, type Region, type ReportFacts } from './corpus.js';
import {
  QUESTION_KINDS,
  computeGold,
  generateQuestions,
  isCorrect,
  parseQuestion,
  questionText,
  type GoldAnswer,
  type QuestionSpec,
} from './questions.js';

// Four hand-made reports; every expected answer below was worked out by hand from these numbers.
const TINY: ReportFacts[] = [
  {
    id: 'report-0001',
    company: 'Alpha Works',
    region: 'Western Europe',
    quarter: '2025-Q1',
    segment: 'Retail',
    kpis: { revenue: 1200, operatingCost: 1000, headcount: 10, customerCount: 300, churnRatePct: 4.5, nps: 20 },
  },
  {
    id: 'report-0002',
    company: 'Beta Labs',
    region: 'Asia Pacific',
    quarter: '2025-Q1',
    segment: 'Software',
    kpis: { revenue: 3400, operatingCost: 2900, headcount: 25, customerCount: 120, churnRatePct: 7.0, nps: 35 },
  },
  {
    id: 'report-0003',
    company: 'Gamma Group',
    region: 'Western Europe',
    quarter: '2025-Q2',
    segment: 'Energy',
    kpis: { revenue: 3400, operatingCost: 3100, headcount: 18, customerCount: 950, churnRatePct: 12.2, nps: -5 },
  },
  {
    id: 'report-0004',
    company: 'Delta Supply',
    region: 'North America',
    quarter: '2025-Q2',
    segment: 'Logistics',
    kpis: { revenue: 560, operatingCost: 700, headcount: 6, customerCount: 45, churnRatePct: 7.0, nps: 35 },
  },
];

describe('computeGold on a hand-checked corpus', () => {
  it('sums over all reports and over one region', () => {
    expect(computeGold({ kind: 'sum', kpi: 'revenue' }, TINY)).toEqual({ kind: 'sum', value: 8560, matched: 4 });
    expect(computeGold({ kind: 'sum', kpi: 'revenue', region: 'Western Europe' }, TINY)).toEqual({
      kind: 'sum',
      value: 4600,
      matched: 2,
    });
    expect(computeGold({ kind: 'sum', kpi: 'headcount', region: 'Asia Pacific' }, TINY)).toEqual({
      kind: 'sum',
      value: 25,
      matched: 1,
    });
    expect(computeGold({ kind: 'sum', kpi: 'customerCount', region: 'Middle East' }, TINY)).toEqual({
      kind: 'sum',
      value: 0,
      matched: 0,
    });
  });

  it('finds the maximum, breaking ties by the lower id', () => {
    expect(computeGold({ kind: 'max', kpi: 'revenue' }, TINY)).toEqual({
      kind: 'max',
      best: { id: 'report-0002', company: 'Beta Labs', value: 3400 },
    });
    expect(computeGold({ kind: 'max', kpi: 'nps' }, TINY)).toEqual({
      kind: 'max',
      best: { id: 'report-0002', company: 'Beta Labs', value: 35 },
    });
    expect(computeGold({ kind: 'max', kpi: 'churnRatePct' }, TINY)).toEqual({
      kind: 'max',
      best: { id: 'report-0003', company: 'Gamma Group', value: 12.2 },
    });
    expect(computeGold({ kind: 'max', kpi: 'revenue' }, [])).toEqual({ kind: 'max', best: null });
  });

  it('ranks the top k, highest first, ties by id', () => {
    const ids = (spec: QuestionSpec): string[] => {
      const gold = computeGold(spec, TINY);
      return gold.kind === 'top-k' ? gold.items.map((i) => i.id) : [];
    };
    expect(ids({ kind: 'top-k', kpi: 'revenue', k: 3 })).toEqual(['report-0002', 'report-0003', 'report-0001']);
    expect(ids({ kind: 'top-k', kpi: 'customerCount', k: 3 })).toEqual(['report-0003', 'report-0001', 'report-0002']);
    expect(ids({ kind: 'top-k', kpi: 'churnRatePct', k: 3 })).toEqual(['report-0003', 'report-0002', 'report-0004']);
    expect(ids({ kind: 'top-k', kpi: 'nps', k: 10 })).toEqual([
      'report-0002',
      'report-0004',
      'report-0001',
      'report-0003',
    ]);
  });

  it('compares two regions, with a null winner on a tie', () => {
    expect(computeGold({ kind: 'compare', kpi: 'revenue', regions: ['Western Europe', 'Asia Pacific'] }, TINY)).toEqual(
      {
        kind: 'compare',
        regions: ['Western Europe', 'Asia Pacific'],
        totals: [4600, 3400],
        winner: 'Western Europe',
      },
    );
    expect(
      computeGold({ kind: 'compare', kpi: 'headcount', regions: ['North America', 'Asia Pacific'] }, TINY),
    ).toEqual({
      kind: 'compare',
      regions: ['North America', 'Asia Pacific'],
      totals: [6, 25],
      winner: 'Asia Pacific',
    });
    const tie = computeGold({ kind: 'compare', kpi: 'operatingCost', regions: ['South America', 'Middle East'] }, TINY);
    expect(tie).toMatchObject({ totals: [0, 0], winner: null });
  });

  it('counts churn strictly above the threshold', () => {
    expect(computeGold({ kind: 'count', thresholdPct: 7 }, TINY)).toEqual({ kind: 'count', count: 1 });
    expect(computeGold({ kind: 'count', thresholdPct: 4.5 }, TINY)).toEqual({ kind: 'count', count: 3 });
    expect(computeGold({ kind: 'count', thresholdPct: 4 }, TINY)).toEqual({ kind: 'count', count: 4 });
    expect(computeGold({ kind: 'count', thresholdPct: 12.2 }, TINY)).toEqual({ kind: 'count', count: 0 });
  });

  it('agrees with plain loops on a small generated corpus', () => {
    const reports = generateReports(4, 99);
    let total = 0;
    let best = reports[0];
    let over5 = 0;
    for (const report of reports) {
      total += report.kpis.operatingCost;
      if (best === undefined || report.kpis.headcount > best.kpis.headcount) best = report;
      if (report.kpis.churnRatePct > 5) over5 += 1;
    }
    expect(computeGold({ kind: 'sum', kpi: 'operatingCost' }, reports)).toEqual({
      kind: 'sum',
      value: total,
      matched: 4,
    });
    expect(computeGold({ kind: 'max', kpi: 'headcount' }, reports)).toMatchObject({
      best: { id: best?.id, value: best?.kpis.headcount },
    });
    expect(computeGold({ kind: 'count', thresholdPct: 5 }, reports)).toEqual({ kind: 'count', count: over5 });
  });
});

const regionArb = fc.constantFrom(...REGIONS);
const specArb: fc.Arbitrary<QuestionSpec> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...ADDITIVE_KPIS), fc.option(regionArb, { nil: undefined }))
    .map(([kpi, region]): QuestionSpec => (region === undefined ? { kind: 'sum', kpi } : { kind: 'sum', kpi, region })),
  fc.constantFrom(...KPI_NAMES).map((kpi): QuestionSpec => ({ kind: 'max', kpi })),
  fc
    .tuple(fc.constantFrom(...KPI_NAMES), fc.integer({ min: 1, max: 20 }))
    .map(([kpi, k]): QuestionSpec => ({ kind: 'top-k', kpi, k })),
  fc
    .tuple(fc.constantFrom(...ADDITIVE_KPIS), fc.shuffledSubarray([...REGIONS], { minLength: 2, maxLength: 2 }))
    .map(([kpi, [a, b]]): QuestionSpec => ({ kind: 'compare', kpi, regions: [a as Region, b as Region] })),
  fc.integer({ min: 0, max: 300 }).map((tenths): QuestionSpec => ({ kind: 'count', thresholdPct: tenths / 10 })),
);

describe('questionText and parseQuestion', () => {
  it('round-trips every kind of question', () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        expect(parseQuestion(questionText(spec))).toEqual(spec);
      }),
      { numRuns: 500 },
    );
  });

  it('renders the documented templates', () => {
    expect(questionText({ kind: 'sum', kpi: 'revenue' })).toBe(
      'What is the total revenue (USD thousands) across all reports?',
    );
    expect(questionText({ kind: 'sum', kpi: 'headcount', region: 'Middle East' })).toBe(
      'What is the total headcount across all reports in the Middle East region?',
    );
    expect(questionText({ kind: 'max', kpi: 'nps' })).toBe(
      'Which report has the highest NPS? Break ties by the lower report id. Give the report id and the company.',
    );
    expect(questionText({ kind: 'top-k', kpi: 'churnRatePct', k: 3 })).toBe(
      'Which are the top 3 reports by churn rate (%), highest first? Break ties by the lower report id. Give the report ids and the companies.',
    );
    expect(questionText({ kind: 'compare', kpi: 'customerCount', regions: ['Asia Pacific', 'Eastern Europe'] })).toBe(
      'Which region has the higher total customer count across all reports, Asia Pacific or Eastern Europe? Give both totals.',
    );
    expect(questionText({ kind: 'count', thresholdPct: 5.5 })).toBe('How many reports have a churn rate above 5.5%?');
  });

  it('finds a question inside a longer prompt, whatever its case', () => {
    const prompt = `You are an analyst.\n\nTask: ${questionText({ kind: 'sum', kpi: 'operatingCost', region: 'Asia Pacific' }).toLowerCase()}\nUse the tools.`;
    expect(parseQuestion(prompt)).toEqual({ kind: 'sum', kpi: 'operatingCost', region: 'Asia Pacific' });
  });

  it('refuses text that is not a question of the scenario or makes no sense', () => {
    expect(parseQuestion('What is the weather like?')).toBeUndefined();
    expect(parseQuestion('What is the total churn rate (%) across all reports?')).toBeUndefined();
    expect(parseQuestion('What is the total profit across all reports?')).toBeUndefined();
    expect(
      parseQuestion(
        'Which region has the higher total headcount across all reports, Middle East or Middle East? Give both totals.',
      ),
    ).toBeUndefined();
    expect(parseQuestion('Which are the top 0 reports by NPS, highest first?')).toBeUndefined();
  });
});

describe('generateQuestions', () => {
  const reports = generateReports(120, 17);

  it('is deterministic and covers every kind with distinct, parseable questions', () => {
    const questions = generateQuestions(reports, 5, 20);
    expect(generateQuestions(reports, 5, 20)).toEqual(questions);
    expect(generateQuestions(reports, 6, 20)).not.toEqual(questions);
    expect(questions).toHaveLength(20);
    expect(new Set(questions.map((q) => q.kind))).toEqual(new Set(QUESTION_KINDS));
    expect(new Set(questions.map((q) => q.text)).size).toBe(20);
    expect(new Set(questions.map((q) => q.id)).size).toBe(20);
    for (const question of questions) {
      expect(parseQuestion(question.text)).toEqual(question.spec);
      expect(question.kind).toBe(question.spec.kind);
      expect(question.gold).toEqual(computeGold(question.spec, reports));
      expect(question.needsAllReports).toBe(true);
      if (question.gold.kind === 'compare') expect(question.gold.winner).not.toBeNull();
    }
  });

  it('stops short of the count rather than repeat itself on a tiny corpus', () => {
    const questions = generateQuestions(TINY.slice(0, 1), 1, 500);
    expect(new Set(questions.map((q) => q.text)).size).toBe(questions.length);
    expect(questions.length).toBeLessThan(500);
  });

  it('refuses an empty corpus with a configuration error', () => {
    expect(() => generateQuestions([], 1)).toThrowError(/empty corpus/);
    try {
      generateQuestions([], 1);
    } catch (error) {
      expect(PagewiseError.isInstance(error) && error.fault).toBe('configuration');
    }
  });
});

describe('isCorrect', () => {
  const sum: GoldAnswer = { kind: 'sum', value: 1234567, matched: 40 };

  it('accepts a sum however its thousands are written, and rejects an off-by-one', () => {
    expect(isCorrect('The total is 1,234,567.', sum)).toBe(true);
    expect(isCorrect('Total revenue: 1234567 (USD thousands)', sum)).toBe(true);
    expect(isCorrect('about 1\u202f234\u202f567 thousand dollars', sum)).toBe(true);
    expect(isCorrect("1'234'567", sum)).toBe(true);
    expect(isCorrect('The total is 1,234,568.', sum)).toBe(false);
    expect(isCorrect('The total is 1,234,566.', sum)).toBe(false);
    expect(isCorrect('The total is 1,234,567.5.', sum)).toBe(false);
    expect(isCorrect('I could not compute it.', sum)).toBe(false);
  });

  it('does not read digits of report ids or percentages as the count', () => {
    const gold: GoldAnswer = { kind: 'count', count: 5 };
    expect(isCorrect('5 reports have a churn rate above 5%.', gold)).toBe(true);
    expect(isCorrect('6 reports have a churn rate above 5%.', gold)).toBe(false);
    expect(isCorrect('Only report-0005 is above 7%.', gold)).toBe(false);
    expect(isCorrect('There are -5 reports', gold)).toBe(false);
  });

  it('checks the report named for a maximum, by id or else by company', () => {
    const gold: GoldAnswer = { kind: 'max', best: { id: 'report-0042', company: 'Northvale Labs', value: 9 } };
    expect(isCorrect('The highest is report-0042 (Northvale Labs).', gold)).toBe(true);
    expect(isCorrect('REPORT-0042', gold)).toBe(true);
    expect(isCorrect('It is Northvale Labs.', gold)).toBe(true);
    expect(isCorrect('The highest is report-0041 (Northvale Labs), not report-0042.', gold)).toBe(false);
    expect(isCorrect('It is Oakhurst Works.', gold)).toBe(false);
  });

  it('requires the top-k reports in the right order', () => {
    const gold: GoldAnswer = {
      kind: 'top-k',
      items: [
        { id: 'report-0003', company: 'Gamma Group', value: 9 },
        { id: 'report-0001', company: 'Alpha Works', value: 8 },
        { id: 'report-0002', company: 'Beta Labs', value: 7 },
      ],
    };
    expect(
      isCorrect('1) report-0003 (Gamma Group); 2) report-0001 (Alpha Works); 3) report-0002 (Beta Labs)', gold),
    ).toBe(true);
    expect(isCorrect('Gamma Group, then Alpha Works, then Beta Labs', gold)).toBe(true);
    expect(isCorrect('report-0001, report-0003, report-0002', gold)).toBe(false);
    expect(isCorrect('report-0003, report-0001', gold)).toBe(false);
    expect(isCorrect('Alpha Works, Gamma Group, Beta Labs', gold)).toBe(false);
  });

  it('requires both totals and the winner named first in a comparison', () => {
    const gold: GoldAnswer = {
      kind: 'compare',
      regions: ['Asia Pacific', 'Western Europe'],
      totals: [3400, 4600],
      winner: 'Western Europe',
    };
    expect(isCorrect('Western Europe is higher: 4,600 against 3,400 for Asia Pacific.', gold)).toBe(true);
    expect(isCorrect('Asia Pacific is higher: 3,400 against 4,600 for Western Europe.', gold)).toBe(false);
    expect(isCorrect('Western Europe is higher: 4,600.', gold)).toBe(false);
    expect(isCorrect('Western Europe is higher: 4,601 against 3,400 for Asia Pacific.', gold)).toBe(false);
    const tie: GoldAnswer = {
      kind: 'compare',
      regions: ['Asia Pacific', 'Western Europe'],
      totals: [10, 10],
      winner: null,
    };
    expect(isCorrect('It is a tie at 10 each.', tie)).toBe(true);
    expect(isCorrect('Asia Pacific wins with 10 against 10.', tie)).toBe(false);
  });
});
