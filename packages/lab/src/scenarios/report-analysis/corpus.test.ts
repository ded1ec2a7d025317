// Tests of the report corpus: determinism, body size in tokens, prose/table agreement, files on disk.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../../../pagewise/src/tokens/tokenizer.js';
import {
  KPI_NAMES,
  REGIONS,
  createRng,
  formatInteger,
  formatKpi,
  generateReports,
  writeCorpus,
  type KpiName,
} from './corpus.js';

describe('createRng', () => {
  it('repeats the same sequence for the same seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (seed) => {
        const first = createRng(seed);
        const second = createRng(seed);
        for (let draw = 0; draw < 20; draw++) expect(first.next()).toBe(second.next());
      }),
    );
  });

  it('draws integers within the inclusive range and floats in [0, 1)', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        (seed, min, span) => {
          const rng = createRng(seed);
          for (let draw = 0; draw < 20; draw++) {
            const drawn = rng.int(min, min + span);
            expect(Number.isInteger(drawn) && drawn >= min && drawn <= min + span).toBe(true);
            const fraction = rng.next();
            expect(fraction >= 0 && fraction < 1).toBe(true);
          }
        },
      ),
    );
  });

  it('starts neighbouring seeds in unrelated places', () => {
    const firsts = new Set(Array.from({ length: 100 }, (_, seed) => createRng(seed).next()));
    expect(firsts.size).toBe(100);
  });
});

describe('generateReports', () => {
  it('gives the same corpus for the same seed and a different one for another seed', () => {
    const first = generateReports(50, 7);
    expect(generateReports(50, 7)).toEqual(first);
    const second = generateReports(50, 8);
    for (let index = 0; index < first.length; index++) expect(second[index]?.body).not.toBe(first[index]?.body);
  });

  it('makes a small corpus a prefix of a larger one with the same seed', () => {
    expect(generateReports(1000, 3).slice(0, 20)).toEqual(generateReports(20, 3));
  });

  it('gives every report its own id, uri and body', () => {
    const reports = generateReports(500, 5);
    expect(reports[0]?.id).toBe('report-0001');
    expect(reports[41]?.uri).toBe('reports/report-0042.md');
    for (const key of ['id', 'uri', 'body'] as const) expect(new Set(reports.map((r) => r[key])).size).toBe(500);
  });

  it('keeps every body between 1,000 and 2,000 o200k tokens (a sample of 50)', () => {
    const reports = generateReports(1000, 2024);
    const sample = reports.filter((_, i) => i % 20 === 0);
    expect(sample).toHaveLength(50);
    for (const report of sample) {
      const tokens = countTokens(report.body);
      expect(tokens, report.id).toBeGreaterThanOrEqual(1000);
      expect(tokens, report.id).toBeLessThanOrEqual(2000);
    }
  });

  it('draws plausible KPIs: integers, churn with one decimal, known regions', () => {
    for (const report of generateReports(300, 9)) {
      for (const kpi of KPI_NAMES) {
        const value = report.kpis[kpi];
        if (kpi === 'churnRatePct') expect(Number(value.toFixed(1))).toBe(value);
        else expect(Number.isInteger(value)).toBe(true);
      }
      expect(report.kpis.revenue).toBeGreaterThan(0);
      expect(report.kpis.operatingCost).toBeGreaterThan(0);
      expect(report.kpis.nps).toBeGreaterThanOrEqual(-100);
      expect(report.kpis.nps).toBeLessThanOrEqual(100);
      expect(REGIONS).toContain(report.region);
      expect(report.quarter).toMatch(/^\d{4}-Q[1-4]$/);
    }
  });
});

describe('report bodies', () => {
  // Words that name each KPI in prose, so a number is checked in a sentence about the right KPI.
  const KPI_WORDS: Record<KpiName, RegExp> = {
    revenue: /revenue/i,
    operatingCost: /operat/i,
    headcount: /headcount|employ|staff/i,
    customerCount: /customers/i,
    churnRatePct: /churn/i,
    nps: /NPS|net promoter/i,
  };

  it('states each KPI in the prose and in the table, with the same value', () => {
    for (const report of generateReports(200, 13)) {
      const [prose, table] = report.body.split('## Key figures');
      expect(prose && table, report.id).toBeTruthy();
      const sentences = (prose ?? '').split(/(?<=[.!?])\s+/);
      // Table read independently of the library's parser: label cell, value cell.
      const rows = new Map(
        (table ?? '')
          .split('\n')
          .filter((l) => l.startsWith('| ') && !l.startsWith('| ---') && !l.startsWith('| KPI'))
          .map((l) => l.split('|').map((c) => c.trim()))
          .map((cells) => [cells[1], cells[2]]),
      );
      expect(rows.get('Revenue (USD thousands)')).toBe(formatInteger(report.kpis.revenue));
      expect(rows.get('Operating cost (USD thousands)')).toBe(formatInteger(report.kpis.operatingCost));
      expect(rows.get('Headcount')).toBe(formatInteger(report.kpis.headcount));
      expect(rows.get('Customer count')).toBe(formatInteger(report.kpis.customerCount));
      expect(rows.get('Churn rate (%)')).toBe(report.kpis.churnRatePct.toFixed(1));
      expect(rows.get('NPS')).toBe(String(report.kpis.nps));
      for (const kpi of KPI_NAMES) {
        const value = formatKpi(kpi, report.kpis[kpi]);
        const standalone = new RegExp(`(?<![\\d,.])${value.replace(/[.]/g, '\\.')}(?![\\d,]|\\.\\d)`);
        const stated = sentences.some((s) => standalone.test(s) && KPI_WORDS[kpi].test(s));
        expect(stated, `${report.id} ${kpi} ${value}`).toBe(true);
      }
    }
  });

  it('starts with a title line and a header line naming id, company, region and quarter', () => {
    const [report] = generateReports(1, 21);
    const lines = report?.body.split('\n') ?? [];
    expect(lines[0]).toBe(`# ${report?.title}`);
    expect(lines[2]).toBe(
      `Report ID: ${report?.id} | Company: ${report?.company} | Region: ${report?.region} | Quarter: ${report?.quarter} | Segment: ${report?.segment}`,
    );
  });
});

describe('writeCorpus', () => {
  it('writes one markdown file per report and a manifest without KPIs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pagewise-corpus-'));
    try {
      const reports = await writeCorpus(dir, 12, 4);
      expect(reports).toEqual(generateReports(12, 4));
      const files = (await readdir(dir)).sort();
      expect(files).toEqual([...reports.map((r) => `${r.id}.md`), 'manifest.json'].sort());
      for (const report of reports) expect(await readFile(join(dir, `${report.id}.md`), 'utf8')).toBe(report.body);
      const manifestText = await readFile(join(dir, 'manifest.json'), 'utf8');
      const manifest = JSON.parse(manifestText) as { count: number; reports: Record<string, unknown>[] };
      expect(manifest.count).toBe(12);
      expect(manifest.reports[0]).toEqual({
        id: 'report-0001',
        uri: 'reports/report-0001.md',
        title: reports[0]?.title,
      });
      expect(manifestText).not.toMatch(/kpis|revenue|churn/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
