import { describe, expect, it } from 'vitest';
import { FilingIndex, fileOfUri, namesQuarter } from './filings.js';
import { entityWarning } from './passage-policy.js';
import { findPassages } from './passages.js';
import { understandQuestion } from './query.js';

/** Two companies' filings: CVS's pages match "operating margin" better, the question asks about AmEx. */
function filings(): FilingIndex {
  const index = new FilingIndex();
  const pages: [string, string][] = [
    ['CVS_2022_10K.pdf#1', 'CVS Health Corporation. Annual report on Form 10-K for the fiscal year 2022.'],
    ['CVS_2022_10K.pdf#2', 'Operating margin was 4.1%. Operating margin rose; operating income and margin grew.'],
    ['CVS_2021_10K.pdf#1', 'CVS Health Corporation. Annual report on Form 10-K for the fiscal year 2021.'],
    ['AXP_2022_10K.pdf#1', 'American Express Company (AmEx). Annual report on Form 10-K for fiscal year 2022.'],
    ['AXP_2022_10K.pdf#2', 'Card member spending. AmEx pretax income and its margin on revenues.'],
    ['AXP_2022_10K.pdf#3', 'Operating expenses of AmEx were 23,000 million in 2022.'],
    ['AXP_2021_10K.pdf#1', 'American Express Company (AmEx). Annual report on Form 10-K for fiscal year 2021.'],
    ['AXP_2021_10K.pdf#2', 'AmEx margin on revenues in 2021.'],
  ];
  for (const [uri, body] of pages) index.add({ uri, title: uri, body });
  return index;
}

describe('documents before passages', () => {
  it('leads with the pages of the named company and year, however well another filing matches the words', () => {
    const index = filings();
    const results = index.search("AmEx's operating margin FY2022", 10).map((r) => r.uri);
    expect(results[0]).toMatch(/^AXP_2022_10K\.pdf#/);
    // Every page of that filing that holds a term comes before any other filing's.
    expect(results.slice(0, 3).map(fileOfUri)).toEqual(['AXP_2022_10K.pdf', 'AXP_2022_10K.pdf', 'AXP_2022_10K.pdf']);
    const ranked = index.rankDocuments(understandQuestion("What is AmEx's operating margin in FY2022?"));
    expect(ranked.slice(0, 2).map((d) => d.file)).toEqual(['AXP_2022_10K.pdf', 'AXP_2021_10K.pdf']);
    expect(ranked[0]!.entity).toBeGreaterThan(0);
    expect(ranked.find((d) => d.file === 'CVS_2022_10K.pdf')!.entity).toBe(0);
  });

  it("reads the named company's page that prints the measure asked, though it holds none of the question's words", () => {
    const index = new FilingIndex();
    const pages: [string, string][] = [
      [
        '2023 Q3 ACME.pdf#1',
        'Acme Corporation. Quarterly report on Form 10-Q. Our R&D expenditure supports new products.',
      ],
      [
        '2023 Q3 ACME.pdf#2',
        'Acme expenditure in the most recent quarter rose; Acme compares well to previous quarters.',
      ],
      [
        '2023 Q3 ACME.pdf#3',
        'STATEMENTS OF OPERATIONS\nTechnology and infrastructure 21,203 19,485\nNet income 9,879 2,872',
      ],
      ['2023 Q3 ZETA.pdf#1', 'Zeta Inc. Quarterly report. R&D expenditure in the most recent quarter.'],
    ];
    // Titles without the name, so that page 3 holds no word of the question, not even in its title.
    for (const [uri, body] of pages) index.add({ uri, title: 'Page', body });
    // Page 3 prints "Technology and infrastructure", a label of research and development, and no word of the question.
    const results = index.search('Acme R&D expenditure in the most recent quarter compared to previous quarters', 10);
    expect(results.map((r) => r.uri)).toContain('2023 Q3 ACME.pdf#3');
    expect(results[0]!.uri).toBe('2023 Q3 ACME.pdf#3');
  });

  it('without a name, keeps several documents in the results, best page first', () => {
    const results = filings().search('operating margin', 10);
    expect(results[0]!.uri).toBe('CVS_2022_10K.pdf#2');
    expect(new Set(results.map((r) => fileOfUri(r.uri))).size).toBeGreaterThan(1);
  });

  it('says when the leading passage is from a document that does not name the company asked about', () => {
    const leading = { citation: 'CVS_2022_10K.pdf#2', text: 'Operating margin was 4.1%.', score: 1 };
    expect(entityWarning("What is AmEx's operating margin?", leading)).toMatch(
      /names AmEx, but the leading passage \(CVS_2022_10K\.pdf#2\) is from CVS_2022_10K\.pdf/,
    );
    const own = { citation: 'AMEX_2022.pdf#3', text: 'Margin was 20%.', score: 1 };
    expect(entityWarning("What is AmEx's operating margin?", own)).toBeUndefined();
    expect(entityWarning('What was the operating margin?', leading)).toBeUndefined();
  });

  it('within a filing named after the company, ranks passages by what the question asks, not by the name', () => {
    const sources = [
      { uri: 'JUNIPERHOLDINGS_2019_10K.pdf#2', body: 'Juniper Holdings reported total revenue in 2019.' },
      { uri: 'JUNIPERHOLDINGS_2019_10K.pdf#6', body: '(in thousands) 2019 2018\nTotal other assets $140,964 $111,749' },
    ];
    const [best] = findPassages('For Juniper Holdings, what was the Total other assets in 2019?', sources, 3);
    expect(best).toMatchObject({ citation: 'JUNIPERHOLDINGS_2019_10K.pdf#6' });
    expect(best!.text).toBe('Total other assets: 2019: $140,964 | 2018: $111,749');
  });

  it("shows the named company's other filings too, so a year reported in the next year's filing is found", () => {
    const index = new FilingIndex();
    const add = (uri: string, body: string) => index.add({ uri, title: uri, body });
    add('AMEX_2018_10K.pdf#1', 'American Express. Annual report on Form 10-K for the fiscal year 2018.');
    for (let page = 2; page <= 7; page += 1)
      add(`AMEX_2018_10K.pdf#${page}`, `AmEx total assets grew in 2018 (${page}).`);
    add('AMEX_2019_10K.pdf#1', 'American Express. Annual report on Form 10-K for the fiscal year 2019.');
    add('AMEX_2019_10K.pdf#2', 'Risk factors of AmEx.');
    add('AMEX_2019_10K.pdf#3', '(in millions) 2019 2018\nTotal fees 1,200 1,100');
    const firstFive = index.search('AmEx total fees in 2018', 10).slice(0, 5);
    expect(fileOfUri(firstFive[0]!.uri)).toBe('AMEX_2018_10K.pdf');
    expect(firstFive.map((r) => r.uri)).toContain('AMEX_2019_10K.pdf#3');
  });

  it("ranks the named company's pages by the question's other words, not by how often they repeat the name", () => {
    const index = new FilingIndex();
    const add = (uri: string, body: string) => index.add({ uri, title: uri, body });
    add('ACME_2019_10K.pdf#1', 'Acme Industries. Annual report on Form 10-K for fiscal year 2019. Acme Industries.');
    for (let page = 2; page <= 6; page += 1)
      add(`ACME_2019_10K.pdf#${page}`, `Acme Industries, Acme Industries: net sales and operating income (${page}).`);
    add('ACME_2019_10K.pdf#7', 'See the discussion of operating income below under Segment Results.');
    for (let page = 1; page <= 20; page += 1)
      add(`OTHER_${page}_10K.pdf#1`, `Other Corp. Operating income and discussion of results, page ${page}.`);
    const results = index.search('For Acme Industries, where can the discussion of operating income be found?', 5);
    expect(results[0]!.uri).toBe('ACME_2019_10K.pdf#7');
  });

  it('takes "the most recent" filing of the named company for a question without a year', () => {
    const index = new FilingIndex();
    const pages: [string, string][] = [
      ['2023 Q1 ZEN.pdf#1', 'Zenith Corp. Form 10-Q for the quarterly period ended April 1, 2023.'],
      [
        '2023 Q1 ZEN.pdf#2',
        'Zenith gross margin was 41% and research and development grew; gross margin gross margin.',
      ],
      ['2023 Q3 ZEN.pdf#1', 'Zenith Corp. Form 10-Q for the quarterly period ended September 30, 2023.'],
      ['2023 Q3 ZEN.pdf#2', 'Zenith gross margin was 44%.'],
      ['2022 Q3 ZEN.pdf#1', 'Zenith Corp. Form 10-Q for the quarterly period ended October 1, 2022.'],
      ['2022 Q3 ZEN.pdf#2', 'Zenith gross margin was 39%.'],
    ];
    for (const [uri, body] of pages) index.add({ uri, title: uri, body });
    const latest = index.rankDocuments(understandQuestion("What was Zenith's gross margin in its most recent 10-Q?"));
    expect(latest[0]!.file).toBe('2023 Q3 ZEN.pdf');
    // Without "most recent" and without a year, the latest filing still leads when the filings match alike: it
    // reports the latest quarter beside the ones before.
    const any = index.rankDocuments(understandQuestion("How has Zenith's gross margin changed over these quarters?"));
    expect(any[0]!.file).toBe('2023 Q3 ZEN.pdf');
    // But not over a filing whose pages hold more of the question's words.
    const research = index.rankDocuments(understandQuestion("How has Zenith's research and development changed?"));
    expect(research[0]!.file).toBe('2023 Q1 ZEN.pdf');
  });

  it('takes the filing of the quarter a question names, not another quarter of that year', () => {
    const index = new FilingIndex();
    const add = (uri: string, body: string) => index.add({ uri, title: uri, body });
    add('2023 Q1 ZEN.pdf#1', 'Zenith Corp. Form 10-Q for the quarterly period ended December 31, 2022.');
    add('2023 Q1 ZEN.pdf#2', 'Zenith research and development was 1,200.');
    add('2023 Q3 ZEN.pdf#1', 'Zenith Corp. Form 10-Q for the quarterly period ended July 1, 2023.');
    add('2023 Q3 ZEN.pdf#2', 'Zenith research and development, research and development spending was 1,400 in 2023.');
    for (const question of [
      'In the first quarter of 2023, how much did Zenith spend on research and development?',
      "What was Zenith's research and development in Q1 2023?",
    ])
      expect(index.rankDocuments(understandQuestion(question))[0]!.file).toBe('2023 Q1 ZEN.pdf');
    expect(index.rankDocuments(understandQuestion("Zenith's research and development in 2023?"))[0]!.file).toBe(
      '2023 Q3 ZEN.pdf',
    );
    expect(namesQuarter('2023 q1 zen pdf', '2023 Q1')).toBe(true);
    expect(namesQuarter('zen q1 fy2023 10q pdf', '2023 Q1')).toBe(true);
    expect(namesQuarter('2023 q3 zen pdf', '2023 Q1')).toBe(false);
    expect(namesQuarter('zen 2023q12 pdf', '2023 Q1')).toBe(false);
  });

  it("counts every filing of the named company as its own, though they say a segment's name unequally often", () => {
    const index = new FilingIndex();
    const add = (uri: string, body: string) => index.add({ uri, title: uri, body });
    add('2022 Q3 ZEN.pdf#1', 'Zenith Corp. Form 10-Q for the quarterly period ended October 1, 2022.');
    add('2022 Q3 ZEN.pdf#2', 'Nova segment revenue. Nova grew. Nova and Nova again.');
    add('2023 Q3 ZEN.pdf#1', 'Zenith Corp. Form 10-Q for the quarterly period ended September 30, 2023.');
    add('2023 Q3 ZEN.pdf#2', 'Nova segment revenue. Nova grew.');
    const ranked = index.rankDocuments(understandQuestion("How has Zenith's Nova segment revenue changed over time?"));
    expect(ranked.map((d) => [d.file, d.named])).toEqual([
      ['2023 Q3 ZEN.pdf', true],
      ['2022 Q3 ZEN.pdf', true],
    ]);
  });
});
