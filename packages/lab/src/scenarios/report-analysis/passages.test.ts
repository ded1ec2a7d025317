import { describe, expect, it } from 'vitest';
import { dateHeader, findPassages, mergePassages, periodHeader, quotesLabel } from './passages.js';

const pdfText = [
  'Sales by contract type are shown below (in millions).',
  'Years Ended September 30,',
  '2019',
  '2018',
  '2017',
  'Fixed Price',
  '$ 1,452.4',
  '$ 1,146.2',
  '$ 1,036.9',
  'Total sales',
  '$1,496.5',
  '$1,202.9',
  '$1,107.7',
].join('\n');

describe('findPassages', () => {
  it('gives a table row with its values on the following lines and the column header with each', () => {
    const [best] = findPassages(
      'What was the amount of total sales in 2019?',
      [{ uri: 'file:q3.txt', body: pdfText }],
      3,
    );
    expect(best?.text).toBe('Total sales: 2019: $1,496.5 | 2018: $1,202.9 | 2017: $1,107.7');
    expect(best?.citation).toBe('q3.txt:10-13');
  });

  it('cites a page of a paged document as file#page, and reads markdown table rows', () => {
    const body = '| Item | 2024 | 2023 |\n|---|---|---|\n| Revenue | 1,200 | 1,100 |\n| Net income | 90 | 80 |';
    const [best] = findPassages('net income?', [{ uri: 'annual.pdf#4', body }], 1);
    expect(best).toEqual({
      citation: 'annual.pdf#4',
      text: 'Net income: 2024: 90 | 2023: 80',
      // Every term, the word pair, the label named whole, and the page as the best page read.
      score: 1.3,
      row: { label: 'Net income', values: ['90', '80'], columns: ['2024', '2023'] },
    });
  });

  it('finds sentences of prose, and Japanese text by words', () => {
    const body = '当社の売上高は前年比12.5%増の1,234億円となりました。営業利益は減少しました。';
    const [best] = findPassages('売上高はいくらですか', [{ uri: 'jp.txt', body }], 1);
    expect(best?.text).toContain('1,234億円');
    expect(findPassages('unrelated words', [{ uri: 'jp.txt', body }], 3)).toEqual([]);
  });

  it("leads with the statement line of a measure the question names, over a sentence that repeats the question's words", () => {
    const statement = [
      'CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (Unaudited)',
      '(In millions)',
      'Three Months Ended',
      'July 1, 2023 June 25, 2022',
      'Net sales $ 81,797 $ 82,959',
      'Research and development $ 7,442 $ 6,797',
    ].join('\n');
    const discussion =
      'Research and development expense grew in the third quarter of 2023, driven primarily by headcount-related expenses.';
    const summary = ['Selected data (in millions)', '2023 2022', 'Research and development 7,442 6,797'].join('\n');
    const question = "How did Acme's R&D expense in the third quarter of 2023 compare to the same quarter in 2022?";
    const sources = [
      { uri: '2023 Q3 ACME.pdf#19', body: discussion },
      { uri: '2023 Q3 ACME.pdf#4', body: statement },
      { uri: '2023 Q3 ACME.pdf#30', body: summary },
    ];
    const [best, second] = findPassages(question, sources, 3);
    expect(best!.citation).toBe('2023 Q3 ACME.pdf#4');
    expect(best!.text).toMatch(/^Research and development: /);
    // The same line in a table that is not the statement gets nothing for it: the discussion leads it.
    expect(second!.citation).toBe('2023 Q3 ACME.pdf#19');
    // Nor does the line in a filing after the first one read.
    const [lead] = findPassages(question, [sources[0]!, { uri: '2022 Q3 ACME.pdf#4', body: statement }], 2);
    expect(lead!.citation).toBe('2023 Q3 ACME.pdf#19');
  });

  it('merges lists best first without duplicates', () => {
    const lower = { citation: 'a.txt:1', text: 'x', score: 0.5 };
    const higher = { citation: 'b.txt:1', text: 'y', score: 0.9 };
    expect(mergePassages([[lower], [higher, lower]], 3)).toEqual([higher, lower]);
  });

  it('prefers the row whose label is what the question names, and reads a sentence ending in a year as prose', () => {
    const body = [
      'Selected data (in thousands) 2019 2018',
      'Net sales 15,440 8,709',
      'Results of operations 2019 2018',
      'Sales $788,948 $718,892',
      'Of the backlog, 9 billion is expected to be converted into revenue in fiscal 2020.',
    ].join('\n');
    const [best] = findPassages('What were the sales in 2019?', [{ uri: 'r.pdf#6', body }], 1);
    expect(best?.text).toBe('Sales: 2019: $788,948 | 2018: $718,892');
    const [sentence] = findPassages('What revenue is expected in fiscal 2020?', [{ uri: 'r.pdf#6', body }], 1);
    expect(sentence?.text).toBe('Of the backlog, 9 billion is expected to be converted into revenue in fiscal 2020.');
  });

  it('meets a verb in another form than the question asks it', () => {
    const body = [
      'Selected data 2019 2018',
      'Operating income 42,992 17,647',
      '',
      'Operating income in the segment decreased $352 million in fiscal 2019 as compared to fiscal 2018.',
    ].join('\n');
    const [best] = findPassages('Why did operating income decrease in fiscal 2019?', [{ uri: 'k.pdf#7', body }], 1);
    expect(best?.text).toMatch(/^Operating income in the segment decreased/);
  });

  it('puts a sentence said once before boilerplate that several pages repeat', () => {
    const boilerplate = 'Operating expenses and net income in 2019 are discussed below, compared with 2018.';
    const pages = [
      { uri: 'f.pdf#2', body: `Properties. We lease offices.\n\n${boilerplate}` },
      { uri: 'f.pdf#3', body: `Legal proceedings. None are material.\n\n${boilerplate}` },
      { uri: 'f.pdf#4', body: 'Research and development expenses rose to $12 million in 2019, from 2018.' },
    ];
    const found = findPassages('What were the expenses in 2019?', pages, 3);
    expect(found[0]?.citation).toBe('f.pdf#4');
    // Alone, the same sentence is not held back.
    expect(findPassages('What were the expenses in 2019?', [pages[0]!], 1)[0]?.text).toBe(boilerplate);
  });

  it('of two passages that match alike, cites the one on the page about the question', () => {
    const pages = [
      { uri: 'g.pdf#2', body: 'Our revenue depends on demand in our end markets.' },
      {
        uri: 'g.pdf#5',
        body: 'Revenue by region is given below.\n\nOur revenue depends on demand in our segments.\n\nRevenue in Europe grew.',
      },
    ];
    const [best] = findPassages('What does revenue depend on?', pages, 1);
    expect(best?.citation).toBe('g.pdf#5');
  });

  it("reads a percent sign set apart from its number as the number's", () => {
    const body = ['Three Months Ended', 'July 1, 2023 June 25, 2022', 'Effective tax rate 12.5 % 15.7 %'].join('\n');
    const [best] = findPassages('What was the effective tax rate?', [{ uri: 't.pdf#21', body }], 1);
    expect(best?.row?.label).toBe('Effective tax rate');
    expect(best?.row?.values).toEqual(['12.5%', '15.7%']);
  });

  it('leads with the row whose label the question says word for word, before sentences that repeat its words', () => {
    const body = [
      'Three Months Ended',
      'July 1, 2023 June 25, 2022',
      'Effective tax rate 12.5 % 15.7 %',
      "The Company's effective tax rate for the third quarter of 2023 was lower compared to the third quarter of 2022.",
    ].join('\n');
    const question =
      'What is the effective tax rate reported in these quarters and how does it compare across the periods?';
    const [best] = findPassages(question, [{ uri: 't.pdf#21', body }], 2);
    expect(best?.row?.label).toBe('Effective tax rate');
    expect(quotesLabel('What was the effective tax rate?', 'Effective tax rate (1)')).toBe(true);
    // Two words are no quote (a selected-data table repeats "Operating income"), and the words keep the label's order.
    expect(quotesLabel('What was the interest expense?', 'Interest expense')).toBe(false);
    expect(quotesLabel('What was the rate of effective tax?', 'Effective tax rate')).toBe(false);
  });

  it("gives a row the measure's words only on the measure's statement or an untitled page", () => {
    const cashFlows = [
      'CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS',
      '(In millions)',
      'Nine Months Ended',
      'July 1, 2023 June 25, 2022',
      'Changes in operating assets and liabilities:',
      'Inventories (2,570) 1,049',
    ].join('\n');
    const note = [
      'Note 4 – Financial Statement Details',
      'July 1, 2023 September 24, 2022',
      'Components $ 3,788 $ 1,637',
      'Total inventories $ 7,351 $ 4,946',
    ].join('\n');
    const found = findPassages(
      'How have the inventory levels changed?',
      [
        { uri: 'q.pdf#8', body: cashFlows },
        { uri: 'q.pdf#13', body: note },
      ],
      2,
    );
    // The change in inventories on the cash flow statement is no inventory level.
    expect(found.map((p) => p.row?.label)).toEqual(['Total inventories', 'Inventories']);
  });

  it('leaves out a running header or footer whose number is the page number', () => {
    const body = [
      'Example Corp. | Q3 2023 Form 10-Q | 4',
      'Net sales were higher in the third quarter of 2023.',
      'Example Corp. | Q3 2023 Form 10-Q | 5',
    ].join('\n');
    const found = findPassages('Example Corp Q3 2023 net sales', [{ uri: 'x.pdf#5', body }], 5);
    expect(found.map((p) => p.text)).toEqual(['Net sales were higher in the third quarter of 2023.']);
    // The same line inside the page is a row like any other.
    const inside = findPassages(
      'Example segment Q3',
      [{ uri: 'x.pdf#6', body: `Intro line\nExample segment | Q3 | 4,120\nEnd line` }],
      5,
    );
    expect(inside[0]?.row?.values).toEqual(['Q3', '4,120']);
  });

  it('heads the columns of a table with a line of period labels', () => {
    expect(periodHeader('Q1 2024 Q2 2024 Q3 2024')).toEqual(['Q1 2024', 'Q2 2024', 'Q3 2024']);
    expect(periodHeader('H1 FY24  H2 FY24')).toEqual(['H1 FY24', 'H2 FY24']);
    expect(periodHeader('Jun 2024 | Dec 2024')).toEqual(['Jun 2024', 'Dec 2024']);
    expect(periodHeader('Revenue rose in Q1 2024 and Q2 2024.')).toBeUndefined();
    expect(periodHeader('Q1 2024')).toBeUndefined();
    const body = ['Q1 2024 Q2 2024', 'Operating margin 7.9% 8.6%'].join('\n');
    const [best] = findPassages('operating margin in Q2 2024?', [{ uri: 'q.pdf#2', body }], 1);
    expect(best?.text).toBe('Operating margin: Q1 2024: 7.9% | Q2 2024: 8.6%');
  });

  it('heads the columns of a table with the years of a header of dates', () => {
    expect(dateHeader('April 26, 2019 April 27, 2018 April 28, 2017')).toEqual(['2019', '2018', '2017']);
    expect(dateHeader('(in thousands) Year Ended December 31, 2018 Year Ended December 31, 2017')).toEqual([
      '2018',
      '2017',
    ]);
    expect(dateHeader('Cash rose from December 31, 2018 to December 31, 2019.')).toBeUndefined();
    expect(dateHeader('2019 2018')).toBeUndefined();
    const body = ['Year Ended', 'April 26, 2019 April 27, 2018 April 28, 2017', 'Net income $ 1,169 $ 116 $ 481'].join(
      '\n',
    );
    const [best] = findPassages('What was the net income in 2019?', [{ uri: 'n.pdf#5', body }], 1);
    expect(best?.text).toBe('Net income: 2019: $1,169 | 2018: $116 | 2017: $481');
    expect(best?.row?.columns).toEqual(['2019', '2018', '2017']);
  });
});
