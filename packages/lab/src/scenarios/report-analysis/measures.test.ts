/**
 * The synonym table, one case per measure: a question that names the measure under one of its phrases, and a
 * statement line that prints it under one of its labels (as published 10-Q statements print it), read as `analyze`
 * reads a page. Each case must name its measure and no other, the row must print that measure and no other, and the
 * one-line answer must state the row's value for the quarter asked, with the statement's scale.
 */
import { describe, expect, it } from 'vitest';
import { answerLine, fittingRows } from './answer-line.js';
import {
  MEASURES,
  labelPrints,
  measureKey,
  measureQualifiers,
  measureSearchWords,
  questionMeasures,
  statementOf,
  type Statement,
} from './measures.js';
import { findPassages } from './passages.js';

const TITLES: Record<Statement, string> = {
  income: 'CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS',
  balance: 'CONDENSED CONSOLIDATED BALANCE SHEETS',
  'cash flows': 'CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS',
};
// Income statements of a quarter print three and six months; balance sheets two dates; cash flows six months.
const HEADERS: Record<Statement, string[]> = {
  income: ['Three Months Ended Six Months Ended', 'June 29, July 1, June 29, July 1,', '2024 2023 2024 2023'],
  balance: ['June 29, December 30,', '2024 2023'],
  'cash flows': ['Six Months Ended', 'June 29, July 1,', '2024 2023'],
};

interface Case {
  measure: string;
  question: string;
  /** The statement lines: the row (last), with a section heading above it where the statement has one. */
  lines: string[];
  /** The value the answer line states for the quarter asked, with its scale. */
  stated: string;
}

const CASES: Case[] = [
  {
    measure: 'revenue',
    question: 'What were Acme’s net sales',
    lines: ['Total net sales 85,777 81,797 176,613 176,633'],
    stated: '85,777 million',
  },
  {
    measure: 'cost of revenue',
    question: 'What was Acme’s cost of goods sold',
    lines: ['Total cost of sales 46,099 45,384 92,001 90,200'],
    stated: '46,099 million',
  },
  {
    measure: 'gross profit',
    question: 'What was Acme’s gross margin',
    lines: ['Gross profit $ 9,462 $ 2,915 $ 14,110 $ 8,346'],
    stated: '$9,462 million',
  },
  {
    measure: 'research and development',
    question: 'What was Acme’s R&D expenditure',
    lines: ['Research and development 2,040 1,824 3,916 3,443'],
    stated: '2,040 million',
  },
  {
    // Some statements print research and development with the infrastructure that runs it.
    measure: 'research and development',
    question: 'What was Acme’s research and development expense',
    lines: ['Technology and infrastructure 21,203 19,485 62,100 54,958'],
    stated: '21,203 million',
  },
  {
    measure: 'selling, general and administrative',
    question: 'What were Acme’s SG&A expenses',
    lines: ['Sales, general and administrative 622 592 1,253 1,183'],
    stated: '622 million',
  },
  {
    measure: 'operating expenses',
    question: 'What was Acme’s opex',
    lines: ['Total operating expenses 2,662 2,416 5,169 5,979'],
    stated: '2,662 million',
  },
  {
    measure: 'operating expenses',
    question: 'What were Acme’s operational expenditures',
    lines: ['Operating expenses 2,662 2,416 5,169 5,979'],
    stated: '2,662 million',
  },
  {
    measure: 'operating income',
    question: 'What was Acme’s income from operations',
    lines: ['Operating income (loss) 6,800 (499) 8,941 2,367'],
    stated: '6,800 million',
  },
  {
    measure: 'net income',
    question: 'What were Acme’s net earnings',
    lines: ['Net income $ 6,188 $ 656 $ 8,232 $ 2,274'],
    stated: '$6,188 million',
  },
  {
    measure: 'diluted EPS',
    question: 'What was Acme’s diluted EPS',
    lines: ['Net income per share:', 'Basic $ 2.50 $ 0.26 $ 3.33 $ 0.91', 'Diluted $ 2.48 $ 0.26 $ 3.30 $ 0.90'],
    stated: '$2.48',
  },
  {
    measure: 'income tax expense',
    question: 'What was Acme’s provision for income taxes',
    lines: ['Income tax expense (benefit) 793 (181) 958 6'],
    stated: '793 million',
  },
  {
    measure: 'interest expense',
    question: 'What was Acme’s interest expense',
    lines: ['Interest expense (65) (64) (131) (132)'],
    stated: '(65) million',
  },
  {
    measure: 'cash and cash equivalents',
    question: 'What were Acme’s cash and cash equivalents',
    lines: ['Cash and cash equivalents $ 5,783 $ 3,389'],
    stated: '$5,783 million',
  },
  {
    measure: 'inventories',
    question: 'What were Acme’s inventory levels',
    lines: ['Inventories 4,319 5,159'],
    stated: '4,319 million',
  },
  {
    measure: 'total assets',
    question: 'What were Acme’s total assets',
    lines: ['Total assets $ 49,555 $ 41,182'],
    stated: '$49,555 million',
  },
  {
    measure: 'total liabilities',
    question: 'What were Acme’s total liabilities',
    lines: ['Total liabilities 22,054 19,081'],
    stated: '22,054 million',
  },
  {
    measure: 'long-term debt',
    question: 'What was Acme’s long term debt',
    lines: ['Long-term debt, net 8,457 9,703'],
    stated: '8,457 million',
  },
  {
    measure: "stockholders' equity",
    question: 'What was Acme’s shareholders’ equity',
    lines: ["Total shareholders' equity 60,274 50,672"],
    stated: '60,274 million',
  },
  {
    measure: 'operating cash flow',
    question: 'What was Acme’s operating cash flow',
    lines: ['Net cash provided by (used in) operating activities 9,259 3,001'],
    stated: '9,259 million',
  },
  {
    measure: 'capital expenditure',
    question: 'What was Acme’s capital expenditure',
    lines: ['Purchases related to property and equipment and intangible assets (537) (794)'],
    stated: '(537) million',
  },
  {
    measure: 'share repurchases',
    question: 'How much did Acme spend on buybacks',
    lines: ['Repurchases of common stock (19,475) (20,478)'],
    stated: '(19,475) million',
  },
  {
    measure: 'dividends paid',
    question: 'What dividends did Acme pay, dividends paid',
    lines: ['Payments for dividends and dividend equivalents (3,768) (3,732)'],
    stated: '(3,768) million',
  },
  {
    measure: 'depreciation and amortization',
    question: 'What was Acme’s D&A',
    lines: ['Depreciation and amortization 749 712'],
    stated: '749 million',
  },
];

const byName = new Map(MEASURES.map((m) => [m.name, m]));

function statementPage(statement: Statement, lines: readonly string[]): string {
  const above = statement === 'cash flows' ? ['Cash flows from operating activities:'] : [];
  return [
    'ACME CORPORATION',
    TITLES[statement],
    '(In millions, except per share data)',
    ...HEADERS[statement],
    ...above,
    ...lines,
    'See accompanying notes.',
  ].join('\n');
}

describe('the synonym table', () => {
  it('has a case here for every measure, and no label printed by two measures', () => {
    expect([...new Set(CASES.map((c) => c.measure))].sort()).toEqual(MEASURES.map((m) => m.name).sort());
    const owners = new Map<string, string>();
    for (const measure of MEASURES)
      for (const label of measure.labels) {
        const key = measureKey(label);
        expect(owners.get(key) ?? measure.name, `${label} of ${measure.name}`).toBe(measure.name);
        owners.set(key, measure.name);
      }
  });

  for (const testCase of CASES)
    it(`maps "${testCase.question}" to the row "${testCase.lines.at(-1)!.replace(/\s[$(]*\d.*$/, '')}" (${testCase.measure})`, () => {
      const measure = byName.get(testCase.measure)!;
      // A flow of the cash flow statement is printed for six months: asked as the 10-Q reports it.
      const question = `${testCase.question} ${measure.statement === 'cash flows' ? 'as reported in the Q2 2024 10-Q' : 'in Q2 2024'}?`;
      expect(questionMeasures(question)).toEqual([measure]);
      const uri = 'ACME_2024_Q2_10Q.pdf#4';
      const passages = findPassages(question, [{ uri, body: statementPage(measure.statement!, testCase.lines) }], 10);
      const row = passages.find((p) => p.row && testCase.lines.at(-1)!.startsWith(p.row.label));
      expect(row, passages.map((p) => p.text).join('\n')).toBeDefined();
      expect(labelPrints(measure, row!.row!.label, row!.row!.section)).toBe(true);
      expect(MEASURES.filter((m) => labelPrints(m, row!.row!.label, row!.row!.section))).toEqual([measure]);
      expect(statementOf(row!.row!.title ?? '')).toBe(measure.statement);
      // The row leads, and the one-line answer states its value for the quarter.
      expect(passages[0]?.citation).toBe(uri);
      const line = answerLine(question, passages, fittingRows(question, passages));
      expect(line).toMatch(new RegExp(`: ${testCase.stated.replace(/[$()]/g, '\\$&')} \\(${uri}\\)$`));
    });

  it('takes the longest phrase at a place, and every measure a question names', () => {
    expect(questionMeasures('What was the operating income?').map((m) => m.name)).toEqual(['operating income']);
    expect(questionMeasures('Net cash from operating activities?').map((m) => m.name)).toEqual(['operating cash flow']);
    expect(questionMeasures('How did operating expenses compare to revenue?').map((m) => m.name)).toEqual([
      'operating expenses',
      'revenue',
    ]);
    expect(questionMeasures('Which risk factors were outlined?')).toEqual([]);
  });

  it('searches a measure named by an abbreviation by its name, and only then', () => {
    // "R&D" leaves no search term a statement prints: the measure's name is searched.
    expect(measureSearchWords("Apple's R&D expenditure in Q3 2023?", ['apple', 'expenditure', 'q3', '2023'])).toEqual([
      'research',
      'development',
    ]);
    expect(measureSearchWords('What was capex in 2023?', ['capex', '2023'])).toEqual(['capital', 'expenditure']);
    // A question that already says a word of the row's label searches with its own words.
    expect(measureSearchWords('What was net cash from operations?', ['net', 'cash', 'operation'])).toEqual([]);
    expect(measureSearchWords('Which risk factors were outlined?', ['risk', 'factor', 'outlined'])).toEqual([]);
  });

  it('finds the word that qualifies a measure, not the company, the period or the question', () => {
    expect(measureQualifiers("What was Acme's services revenue in Q2 2024?", ['acme'])).toEqual(['servic']);
    expect(measureQualifiers('What was the AWS segment revenue in Q2 2024?', [])).toEqual(['segment']);
    expect(measureQualifiers("What was Acme's revenue in Q2 2024?", ['acme'])).toEqual([]);
    expect(measureQualifiers("What were Acme's total net sales in the latest quarter?", ['acme'])).toEqual([]);
    expect(measureQualifiers('How much did Acme spend on R&D in its most recent 10-Q?', ['acme'])).toEqual([]);
    // Investing is how a question asks what was spent: "invested in research and development" is all of it.
    expect(measureQualifiers('How much has Acme invested in research and development in Q1 2023?', ['acme'])).toEqual(
      [],
    );
    expect(measureQualifiers('What was the Q3 2022 capital expenditure?', [])).toEqual([]);
    expect(measureQualifiers("What was the amount of the company's net inventories?", [])).toEqual([]);
    expect(measureQualifiers('What is the ratio of total assets to total liabilities?', [])).toEqual(['ratio']);
  });

  it('matches a label word for word, not a label that holds it', () => {
    const revenue = byName.get('revenue')!;
    expect(labelPrints(revenue, 'Revenue')).toBe(true);
    expect(labelPrints(revenue, 'Cost of revenue')).toBe(false);
    expect(labelPrints(revenue, 'Net revenue (1)')).toBe(true);
    const eps = byName.get('diluted EPS')!;
    expect(labelPrints(eps, 'Diluted')).toBe(false);
    expect(labelPrints(eps, 'Diluted', 'Net income per share')).toBe(true);
  });
});
