/**
 * The sample corpus of the report-analysis scenario: quarterly business reports of fictional company
 * units, generated deterministically from a seed so that benchmarks are reproducible and gold answers
 * can be recomputed from the generated data instead of being read back from files.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// ---------------------------------------------------------------------------------------------------
// Random numbers

/** A seeded pseudo-random source; every draw is a pure function of the seed and the draws before it. */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number;
  /** A float in [min, max). */
  float(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** A copy of `items` in random order. */
  shuffle<T>(items: readonly T[]): T[];
}

// Murmur3's finaliser: spreads a 32-bit seed over all bits so that neighbouring seeds (1, 2, 3...)
// start from unrelated generator states.
function mix32(value: number): number {
  let hash = value >>> 0;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/**
 * Creates a small fast generator (the sfc32 algorithm) from a 32-bit seed. Not cryptographic: it only
 * has to be deterministic, fast and well spread.
 *
 * @example
 * const rng = createRng(42);
 * rng.int(1, 6); // the same sequence of dice on every run
 */
export function createRng(seed: number): Rng {
  let first = mix32(seed);
  let second = mix32(seed + 0x9e3779b9);
  let third = mix32(seed + 0x3c6ef372);
  let counter = mix32(seed + 0xdaa66d2b) | 1;
  const next = (): number => {
    const output = (((first + second) | 0) + counter) | 0;
    counter = (counter + 1) | 0;
    first = second ^ (second >>> 9);
    second = (third + (third << 3)) | 0;
    third = (third << 21) | (third >>> 11);
    third = (third + output) | 0;
    return (output >>> 0) / 4294967296;
  };
  // The first outputs still carry traces of the seeding; drop them.
  for (let skipped = 0; skipped < 12; skipped++) next();
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    float: (min, max) => min + next() * (max - min),
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('pick() needs a non-empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
    shuffle<T>(items: readonly T[]): T[] {
      const out = [...items];
      for (let index = out.length - 1; index > 0; index--) {
        const other = Math.floor(next() * (index + 1));
        [out[index], out[other]] = [out[other] as T, out[index] as T];
      }
      return out;
    },
  };
  return rng;
}

/** A generator for one sub-stream of a seed (report `index` of corpus `seed`), independent of the others. */
export function deriveRng(seed: number, stream: number): Rng {
  return createRng(mix32((seed >>> 0) ^ mix32(stream + 0x51ed27)));
}

// ---------------------------------------------------------------------------------------------------
// The data model

/** The regions a company unit can belong to. */
export const REGIONS = [
  'North America',
  'South America',
  'Western Europe',
  'Eastern Europe',
  'Middle East',
  'Asia Pacific',
] as const;

/** One of {@link REGIONS}. */
export type Region = (typeof REGIONS)[number];

/** The business segments of the units. */
export const SEGMENTS = [
  'Industrial Services',
  'Consumer Goods',
  'Healthcare',
  'Financial Services',
  'Logistics',
  'Software',
  'Energy',
  'Retail',
] as const;

/** The KPIs every report states. */
export interface Kpis {
  /** Revenue of the quarter, integer USD thousands. */
  revenue: number;
  /** Operating cost of the quarter, integer USD thousands. */
  operatingCost: number;
  /** Employees at quarter end. */
  headcount: number;
  /** Active customers at quarter end. */
  customerCount: number;
  /** Share of customers lost in the quarter, percent with one decimal. */
  churnRatePct: number;
  /** Net promoter score, an integer from -100 to 100. */
  nps: number;
}

/** The name of one KPI. */
export type KpiName = keyof Kpis;

/** Every KPI, in the order the report's table lists them. */
export const KPI_NAMES: readonly KpiName[] = [
  'revenue',
  'operatingCost',
  'headcount',
  'customerCount',
  'churnRatePct',
  'nps',
];

/** The KPIs whose values can be added across reports (totals make sense for them). */
export const ADDITIVE_KPIS = ['revenue', 'operatingCost', 'headcount', 'customerCount'] as const;

/** One of {@link ADDITIVE_KPIS}. */
export type AdditiveKpi = (typeof ADDITIVE_KPIS)[number];

/** True when totals of `kpi` across reports make sense. */
export function isAdditiveKpi(kpi: KpiName): kpi is AdditiveKpi {
  return (ADDITIVE_KPIS as readonly string[]).includes(kpi);
}

/**
 * How a KPI is named in running text and questions. The report table uses the same words with a
 * capital first letter, so a reader that knows one spelling can find the other.
 */
export const KPI_LABELS: Readonly<Record<KpiName, string>> = {
  revenue: 'revenue (USD thousands)',
  operatingCost: 'operating cost (USD thousands)',
  headcount: 'headcount',
  customerCount: 'customer count',
  churnRatePct: 'churn rate (%)',
  nps: 'NPS',
};

/** The label of `kpi` as it appears in the first column of a report's KPI table. */
export function kpiTableLabel(kpi: KpiName): string {
  const label = KPI_LABELS[kpi];
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/** The facts of a report that questions are about, whether generated or read back from text. */
export interface ReportFacts {
  /** A stable id, e.g. `report-0042`. */
  id: string;
  company: string;
  region: Region;
  /** e.g. `2025-Q3`. */
  quarter: string;
  segment: string;
  kpis: Kpis;
}

/** A generated report: its facts plus the markdown a reader (model or rule) gets to see. */
export interface Report extends ReportFacts {
  /** Where the report lives in the page store, e.g. `reports/report-0042.md`. */
  uri: string;
  title: string;
  /** The markdown text: title, prose and a KPI table that restates {@link ReportFacts.kpis} exactly. */
  body: string;
}

/** The id of report number `index` (0-based), zero-padded so ids sort in corpus order. */
export function reportId(index: number, width = 4): string {
  return `report-${String(index + 1).padStart(width, '0')}`;
}

/** The page-store uri of a report id. */
export function reportUri(id: string): string {
  return `reports/${id}.md`;
}

/** Formats an integer with comma thousands separators, independent of the host's locale. */
export function formatInteger(value: number): string {
  const digits = String(Math.abs(Math.trunc(value))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return value < 0 ? `-${digits}` : digits;
}

/** Formats a KPI value exactly as reports print it (churn with one decimal, the rest as integers). */
export function formatKpi(kpi: KpiName, value: number): string {
  return kpi === 'churnRatePct' ? value.toFixed(1) : formatInteger(value);
}

// ---------------------------------------------------------------------------------------------------
// Vocabulary of the generated text

const COMPANY_STEMS = [
  'Aldervale',
  'Brightmoor',
  'Cobalt Ridge',
  'Dunmere',
  'Eastwind',
  'Fernhollow',
  'Glenbrook',
  'Harborline',
  'Ironleaf',
  'Juniper Point',
  'Kestrelmark',
  'Lumenfield',
  'Marrowgate',
  'Northvale',
  'Oakhurst',
  'Pinecrest',
  'Quillstone',
  'Redwater',
  'Silverfen',
  'Thornbury',
  'Umberlake',
  'Valewood',
  'Westmarch',
  'Yarrowby',
] as const;
const COMPANY_SUFFIXES = [
  'Holdings',
  'Systems',
  'Industries',
  'Partners',
  'Group',
  'Labs',
  'Works',
  'Trading',
  'Dynamics',
  'Networks',
  'Supply',
  'Analytics',
] as const;
const INITIATIVES = [
  'the pricing review',
  'the self-service portal',
  'the warehouse automation programme',
  'the supplier consolidation effort',
  'the loyalty scheme',
  'the field-service scheduling project',
  'the data platform migration',
  'the partner channel expansion',
  'the energy efficiency retrofit',
  'the onboarding redesign',
  'the contract renewal campaign',
  'the quality assurance overhaul',
] as const;
const PRODUCTS = [
  'the premium tier',
  'the entry-level bundle',
  'the maintenance contracts',
  'the subscription plan',
  'the spare-parts catalogue',
  'the managed service offering',
  'the new mobile app',
  'the enterprise licence',
] as const;
const SYSTEMS = [
  'the new planning system',
  'the shared finance platform',
  'the cloud ticketing tool',
  'the updated order management system',
] as const;
const SITES = [
  'the main distribution hub',
  'the coastal plant',
  'the downtown office',
  'the northern warehouse',
  'the regional service centre',
  'the flagship store',
  'the assembly line',
  'the customer contact centre',
] as const;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;
const QUARTERS = ['2024-Q1', '2024-Q2', '2024-Q3', '2024-Q4', '2025-Q1', '2025-Q2', '2025-Q3', '2025-Q4'] as const;

// Filler discussion per section. Fillers carry no KPI values, so the prose never contradicts the table.
const FILLERS = {
  finance: [
    'Gross pricing held steady, although discounting on {product} increased by roughly {pct}% compared with the prior quarter.',
    'Freight and logistics expenses rose about {pct}% as carriers passed on higher fuel surcharges.',
    'Management deferred part of the capital budget to {next} to protect cash flow.',
    'Receivables collection improved after the finance team tightened payment terms with larger accounts.',
    'Foreign exchange movements had a modest effect on the reported figures in {region}.',
    'Spending on contractors was reduced, partly offset by higher software licence fees.',
    'The unit renegotiated {small} supplier contracts, which should lower unit costs from {next} onwards.',
    'Marketing spend was concentrated on {product}, where conversion rates have been strongest.',
    'Inventory at {site} was brought down to reduce the working capital tied up in slow-moving stock.',
    'One-off restructuring charges were booked in {month} and are not expected to recur.',
    'Utility costs eased slightly after the switch to a fixed-price energy contract.',
    'Travel and entertainment expenses stayed within the budget set at the start of the year.',
    'Warranty provisions were increased as a precaution after a rise in service claims on {product}.',
    'Price increases introduced in {month} were largely accepted by existing customers.',
    'Capital expenditure was directed mostly at replacing ageing equipment at {site}.',
    'Insurance premiums rose at renewal, reflecting higher claims across the {segment} sector.',
    'The finance team closed the books two days faster than in the previous quarter.',
    'Payment delays from a few public-sector clients stretched collection times in {month}.',
  ],
  customers: [
    'Feedback from account reviews named faster response times as the most visible improvement.',
    'Several mid-sized accounts expanded their contracts after a successful pilot of {product}.',
    'Complaints about delivery delays fell after {site} extended its operating hours.',
    'The customer success team ran {small} workshops to help new accounts get started.',
    'Demand from the {segment} sector in {region} remained uneven across customer sizes.',
    'A small number of large customers still account for a disproportionate share of sales.',
    'Win-back campaigns targeted former customers who left during the previous year.',
    'Survey respondents praised product quality but asked for clearer invoices.',
    'The support desk resolved most tickets within one working day.',
    'Renewal conversations for {next} started early to reduce the risk of late cancellations.',
    'Use of self-service channels grew by about {pct}%, easing pressure on the call centre.',
    'Customers in smaller towns asked for more local service coverage.',
    'A redesigned invoice layout cut billing queries by roughly {pct}%.',
    'Larger accounts increasingly ask for bundled pricing across {product} and support.',
    'Customer advisory board meetings in {month} focused on delivery reliability.',
    'Referrals from existing clients remained the cheapest source of new business.',
  ],
  people: [
    'Recruitment focused on engineering and field-service roles, where vacancies had stayed open longest.',
    'Voluntary attrition among staff eased compared with the previous quarter.',
    'A training programme on {system} was completed by most team leads.',
    'Overtime hours at {site} fell by around {pct}% after shift patterns were rebalanced.',
    'The unit opened {small} new roles in customer support to keep up with demand.',
    'Safety audits at {site} found no major incidents during the quarter.',
    'Managers piloted a hybrid working schedule for back-office teams.',
    'Production uptime improved after preventive maintenance was moved to weekends.',
    'The move to {system} reached its second phase in {month}.',
    'Internal mobility rose as several employees moved into newly created analyst positions.',
    'Sick leave remained within normal seasonal levels.',
    'The unit consolidated two small offices into {site} to simplify operations.',
    'An employee engagement survey in {month} showed higher scores for team communication.',
    'Scrap and rework at {site} fell after a new inspection step was added.',
    'Two team leads completed a management development course during the quarter.',
    'Shared service agreements with sister units now cover payroll and procurement.',
  ],
  initiatives: [
    '{Initiative} moved from planning into delivery in {month}.',
    'Work on {initiative} is on schedule, with first results expected in {next}.',
    'The leadership team approved funding for {initiative} after a positive business case review.',
    '{Initiative} is expected to lift productivity by about {pct}% once fully rolled out.',
    'A cross-functional group was set up to run {initiative} alongside day-to-day work.',
    'Early pilots of {initiative} at {site} showed encouraging adoption.',
    'The unit paused {initiative} for a few weeks to free up staff for the seasonal peak.',
    'Partners in {region} were invited to help shape {initiative}.',
    'The budget for {initiative} was raised after the pilot exceeded its targets.',
    '{Initiative} will be extended to the wider {segment} business if the current phase succeeds.',
    'Progress on {initiative} is reviewed monthly by the steering committee of the unit.',
    'Lessons from {initiative} are being shared with sister units in other regions.',
    'The first phase of {initiative} cost slightly less than planned.',
    'Staff feedback on {initiative} has been gathered through short monthly surveys.',
    'An external adviser reviewed the plan for {initiative} and suggested a phased rollout.',
    'Metrics for {initiative} were added to the monthly management dashboard in {month}.',
  ],
  risks: [
    'Supply chain disruption remains the main operational risk for {next}.',
    'A key supplier of components for {product} is under financial strain, and alternatives are being qualified.',
    'Currency volatility in {region} could weigh on reported results.',
    'Competition from low-cost entrants is intensifying in the {segment} market.',
    'Regulatory changes expected in {region} may require additional compliance work.',
    'Wage inflation could raise costs by around {pct}% if current trends continue.',
    'Dependence on a handful of large accounts exposes the unit to concentration risk.',
    'Cybersecurity threats are rising, and the unit has scheduled a penetration test for {month}.',
    'Delays in {initiative} would postpone the expected cost savings.',
    'A prolonged slowdown in customer spending would hit {product} first.',
    'Interest rate movements could make financing more expensive for larger customers.',
    'Extreme weather disrupted operations at {site} and may do so again.',
    'Ageing equipment at {site} raises the chance of unplanned downtime.',
    'Tighter data protection rules could slow the rollout of {system}.',
    'The loss of experienced staff to competitors would weaken service quality.',
    'Rising rents may make the current footprint in {region} harder to justify.',
  ],
  outlook: [
    'Management expects demand to remain stable in {next}, with upside if {initiative} delivers on time.',
    'The unit aims to grow its customer base in {region} while holding costs flat.',
    'Pricing for {next} will be reviewed in {month} against competitor moves.',
    'Hiring is expected to slow as the unit focuses on productivity.',
    'Guidance for the full year is unchanged.',
    'The order pipeline for {next} looks healthier than it did a year ago.',
    'The unit will prioritise keeping existing customers over entering new markets.',
    'Investment in {system} should start to pay off in the second half of the year.',
    'Leadership sees room to improve margins through procurement savings.',
    'A fuller update on {initiative} will be given with the {next} report.',
    'Seasonal patterns suggest a softer start to {next}, followed by a recovery.',
    'The unit plans to launch an updated version of {product} before the end of the year.',
    'Management will revisit the staffing plan in {month} once demand for {next} is clearer.',
    'The unit expects {product} to become a larger share of sales over the coming quarters.',
    'Cost discipline will remain a priority while the market in {region} stays uncertain.',
    'A review of the supplier base is planned ahead of contract renewals in {next}.',
  ],
} as const;

type FillerSection = keyof typeof FILLERS;
const FILLER_SECTIONS = Object.keys(FILLERS) as FillerSection[];

// Each KPI has several phrasings so that reports do not all read alike; every phrasing prints the value
// with formatKpi, the same string as the table.
const KPI_SENTENCES: Readonly<Record<KpiName, readonly string[]>> = {
  revenue: [
    '{company} recorded revenue of USD {revenue} thousand in {region} during {quarter}.',
    'Revenue for the quarter reached {revenue} (USD thousands), driven mainly by {product}.',
    'The {region} unit of {company} booked revenue of {revenue} thousand US dollars in {quarter}.',
    'Top-line revenue came in at USD {revenue} thousand for the {segment} business.',
  ],
  operatingCost: [
    'Operating cost totalled USD {operatingCost} thousand, leaving an operating margin of {margin}%.',
    'Operating costs amounted to {operatingCost} (USD thousands) for the period, which puts the operating margin at {margin}%.',
    'The unit spent USD {operatingCost} thousand on operations, for an operating margin of {margin}%.',
  ],
  headcount: [
    'Headcount stood at {headcount} employees at the end of {quarter}.',
    'The unit employed {headcount} people at quarter end.',
    'At the close of the quarter the team counted {headcount} full-time staff.',
  ],
  customerCount: [
    'The unit served {customerCount} active customers during the quarter.',
    'Active customers numbered {customerCount} at quarter end.',
    '{company} counted {customerCount} customers in {region} by the end of {quarter}.',
  ],
  churnRatePct: [
    'Customer churn was {churnRatePct}% for the quarter, {churnComment}.',
    'The churn rate came to {churnRatePct}%, {churnComment}.',
    'Quarterly churn reached {churnRatePct}% of the customer base, {churnComment}.',
  ],
  nps: [
    'The net promoter score (NPS) was {nps}.',
    'Customer surveys put the net promoter score (NPS) at {nps}.',
    'NPS came in at {nps} in the survey run this quarter.',
  ],
};

const OPENERS = [
  'This report covers the {segment} unit of {company} in {region} for {quarter}.',
  '{company} presents its quarterly review of the {region} {segment} business for {quarter}.',
  'The following sections summarise how the {segment} operations of {company} in {region} performed in {quarter}.',
] as const;

// ---------------------------------------------------------------------------------------------------
// Generation

// Prose length in characters. English prose of this kind runs at about 4.6 characters per o200k token,
// so this range keeps each body (prose plus headings and table) within 1,000-2,000 tokens with margin;
// the corpus tests check the real token counts.
const MIN_PROSE_CHARS = 5_500;
const MAX_PROSE_CHARS = 8_200;

function nextQuarter(quarter: string): string {
  const [year, quarterNumber] = quarter.split('-Q').map(Number) as [number, number];
  return quarterNumber === 4 ? `${year + 1}-Q1` : `${year}-Q${quarterNumber + 1}`;
}

function generateKpis(rng: Rng, segment: string): Kpis {
  // Log-uniform revenue gives a realistic spread of small and large units and makes ties rare.
  const revenue = Math.round(Math.exp(rng.float(Math.log(1_500), Math.log(400_000))));
  const operatingCost = Math.round(revenue * rng.float(0.62, 1.08));
  const headcount = Math.max(8, Math.round(revenue / rng.float(120, 450)));
  const revenuePerCustomer =
    segment === 'Retail' || segment === 'Consumer Goods' ? rng.float(0.2, 3) : rng.float(2, 400);
  const customerCount = Math.max(12, Math.round(revenue / revenuePerCustomer));
  // Drawn as tenths so the value is exactly what one decimal prints and parses back to.
  const churnRatePct = rng.int(4, 180) / 10;
  const nps = rng.int(-35, 78);
  return { revenue, operatingCost, headcount, customerCount, churnRatePct, nps };
}

// Fixed values are plain strings; functions draw a fresh random value at each use.
type Slots = Readonly<Record<string, string | (() => string)>>;

function fill(template: string, slots: Slots): string {
  return template.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const slot = slots[name];
    if (slot === undefined) throw new Error(`report template slot {${name}} has no value`);
    return typeof slot === 'string' ? slot : slot();
  });
}

function paragraphs(rng: Rng, sentences: readonly string[]): string[] {
  const out: string[] = [];
  let position = 0;
  while (position < sentences.length) {
    const size = rng.int(3, 5);
    out.push(sentences.slice(position, position + size).join(' '));
    position += size;
  }
  return out;
}

function generateReport(seed: number, index: number, idWidth: number): Report {
  const rng = deriveRng(seed, index);
  const id = reportId(index, idWidth);
  const company = `${rng.pick(COMPANY_STEMS)} ${rng.pick(COMPANY_SUFFIXES)}`;
  const region = rng.pick(REGIONS);
  const segment = rng.pick(SEGMENTS);
  const quarter = rng.pick(QUARTERS);
  const kpis = generateKpis(rng, segment);
  const title = `Quarterly report: ${company}, ${region}, ${quarter}`;
  const initiative = rng.pick(INITIATIVES);
  // Rounded before printing so that a margin just below zero reads 0.0, not -0.0.
  const margin = (Math.round(((kpis.revenue - kpis.operatingCost) / kpis.revenue) * 1000) / 10).toFixed(1);
  const churnComment =
    kpis.churnRatePct < 3
      ? 'well below the segment average'
      : kpis.churnRatePct < 8
        ? 'in line with the segment average'
        : 'above the level management considers healthy';
  const tone =
    Number(margin) > 15 ? 'a strong quarter' : Number(margin) >= 0 ? 'a steady quarter' : 'a difficult quarter';

  const pickInitiative = (): string => (rng.next() < 0.7 ? initiative : rng.pick(INITIATIVES));
  const slots: Record<string, string | (() => string)> = {
    company,
    region,
    segment,
    quarter,
    next: nextQuarter(quarter),
    // Most fillers are about one initiative, some about another: units run more than one project.
    initiative: pickInitiative,
    Initiative: () => {
      const text = pickInitiative();
      return text.charAt(0).toUpperCase() + text.slice(1);
    },
    product: () => rng.pick(PRODUCTS),
    system: () => rng.pick(SYSTEMS),
    site: () => rng.pick(SITES),
    month: () => rng.pick(MONTHS),
    pct: () => String(rng.int(2, 24)),
    small: () => String(rng.int(2, 9)),
    margin,
    churnComment,
    tone,
  };
  for (const kpi of KPI_NAMES) slots[kpi] = formatKpi(kpi, kpis[kpi]);

  const kpiSentence = (kpi: KpiName): string => fill(rng.pick(KPI_SENTENCES[kpi]), slots);
  const sections: Record<FillerSection, string[]> = {
    finance: [kpiSentence('revenue'), kpiSentence('operatingCost')],
    customers: [kpiSentence('customerCount'), kpiSentence('churnRatePct'), kpiSentence('nps')],
    people: [kpiSentence('headcount')],
    initiatives: [],
    risks: [],
    outlook: [],
  };
  const summary = [fill(rng.pick(OPENERS), slots), fill('Overall, management describes {quarter} as {tone}.', slots)];

  // Unused fillers per section, in random order; popping from them never repeats a sentence in a report.
  const pools = Object.fromEntries(FILLER_SECTIONS.map((s) => [s, rng.shuffle(FILLERS[s])])) as Record<
    FillerSection,
    string[]
  >;
  let chars = [...summary, ...Object.values(sections).flat()].reduce((n, s) => n + s.length + 1, 0);
  const addFiller = (section: FillerSection): void => {
    const template = pools[section].pop();
    if (template === undefined) return;
    const sentence = fill(template, slots);
    // Insert anywhere after the section's first sentence, so KPI sentences do not always sit in one place.
    const at = sections[section].length === 0 ? 0 : rng.int(1, sections[section].length);
    sections[section].splice(at, 0, sentence);
    chars += sentence.length + 1;
  };
  for (const section of FILLER_SECTIONS) for (let round = 0; round < 2; round++) addFiller(section);
  const target = rng.int(MIN_PROSE_CHARS, MAX_PROSE_CHARS);
  while (chars < target) {
    const open = FILLER_SECTIONS.filter((s) => pools[s].length > 0);
    if (open.length === 0) break;
    addFiller(rng.pick(open));
  }

  const headed = (heading: string, sentences: readonly string[]): string[] => [
    `## ${heading}`,
    ...paragraphs(rng, sentences),
  ];
  const table = [
    '| KPI | Value |',
    '| --- | --- |',
    ...KPI_NAMES.map((kpi) => `| ${kpiTableLabel(kpi)} | ${formatKpi(kpi, kpis[kpi])} |`),
  ].join('\n');
  const body = [
    `# ${title}`,
    `Report ID: ${id} | Company: ${company} | Region: ${region} | Quarter: ${quarter} | Segment: ${segment}`,
    ...headed('Summary', summary),
    ...headed('Financial performance', sections.finance),
    ...headed('Customers', sections.customers),
    ...headed('People and operations', sections.people),
    ...headed('Initiatives', sections.initiatives),
    ...headed('Risks', sections.risks),
    ...headed('Outlook', sections.outlook),
    '## Key figures',
    table,
  ].join('\n\n');
  return { id, uri: reportUri(id), title, company, region, quarter, segment, kpis, body: `${body}\n` };
}

/**
 * Generates `count` reports from `seed`. The same seed always gives the same corpus, and report `i` does not
 * depend on `count` (except for the zero padding of ids beyond 9,999 reports), so a small corpus is a
 * prefix of a larger one.
 *
 * @example
 * const reports = generateReports(100, 7);
 * reports[0].id; // 'report-0001'
 */
export function generateReports(count: number, seed: number): Report[] {
  if (!Number.isInteger(count) || count < 0)
    throw new RangeError(`generateReports needs a non-negative integer count, got ${count}`);
  const width = Math.max(4, String(count).length);
  const reports: Report[] = [];
  for (let index = 0; index < count; index++) reports.push(generateReport(seed, index, width));
  return reports;
}

/** One entry of a corpus manifest: what a reader may know about a report before opening it. */
export interface ManifestEntry {
  id: string;
  uri: string;
  title: string;
}

/** The `manifest.json` written beside a corpus. KPIs are left out on purpose: gold answers are recomputed from generated data. */
export interface CorpusManifest {
  seed: number;
  count: number;
  reports: ManifestEntry[];
}

/**
 * Generates `count` reports from `seed`, writes each body to `<dir>/<id>.md` and a `manifest.json` listing
 * ids, uris and titles, and returns the reports (with their KPIs, for computing gold answers).
 */
export async function writeCorpus(dir: string, count: number, seed: number): Promise<Report[]> {
  const reports = generateReports(count, seed);
  await mkdir(dir, { recursive: true });
  // Bounded batches: thousands of simultaneous opens can exceed the process's file descriptor limit.
  for (let batchStart = 0; batchStart < reports.length; batchStart += 64) {
    await Promise.all(
      reports.slice(batchStart, batchStart + 64).map((r) => writeFile(join(dir, `${r.id}.md`), r.body, 'utf8')),
    );
  }
  const manifest: CorpusManifest = {
    seed,
    count,
    reports: reports.map(({ id, uri, title }) => ({ id, uri, title })),
  };
  await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
  return reports;
}
