/**
 * The offline proposer: candidates are edits of the extractive compressor's rules, derived from the
 * deterministic analysis. Utility step: keep the fields the failures lost (the heaviest first), raise
 * the share kept, protect the line kinds lost. Compression step: drop the fields successful runs kept
 * and never used, lower the share kept. Edits name fields and line shapes, never values; the template
 * is left as it is, so every placeholder survives.
 */
import type { Guideline } from 'pagewise/compression';
import { parseExtractiveRules, type AlwaysKeep, type ExtractiveRules } from 'pagewise/extractive';
import type { CompressionAnalysis, FieldWeight } from './analysis.js';
import { canonicalJson } from './hash.js';
import type { CandidateDraft, GuidelineProposer } from './proposer.js';

/** One rule edit: a label and the rules it yields. */
interface Edit {
  edit: string;
  rules: ExtractiveRules;
}

// Lost lines of these shapes are kept by a protected-content flag or a keep pattern, not by a field rule.
const LINE_FLAGS: Partial<Record<string, keyof AlwaysKeep>> = {
  'line:numeric': 'numbers',
  'line:error': 'errors',
  'line:heading': 'headers',
};
const LINE_PATTERNS: Partial<Record<string, string>> = {
  'line:key-value': '^[A-Za-z][\\w ./-]{0,40}:\\s',
  'line:bullet': '^\\s*(?:[-*•]|\\d+[.)])\\s',
  'line:table-row': '^\\|',
};

const RATIO_STEP = 0.25;
const MIN_RATIO = 0.25;
const MIN_SCORE_STEP = 0.3;

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function keep(rules: ExtractiveRules, fields: readonly string[]): ExtractiveRules {
  const jsonKeepFields = [...new Set([...rules.jsonKeepFields, ...fields])];
  // A field now kept must not also be dropped: keep wins in the compressor, but the rules would read as a contradiction.
  return { ...rules, jsonKeepFields, jsonDropFields: rules.jsonDropFields.filter((f) => !fields.includes(f)) };
}

function drop(rules: ExtractiveRules, fields: readonly string[]): ExtractiveRules {
  return { ...rules, jsonDropFields: [...new Set([...rules.jsonDropFields, ...fields])] };
}

function withRatio(rules: ExtractiveRules, ratio: number): ExtractiveRules {
  return { ...rules, ratio: round(Math.min(1, Math.max(MIN_RATIO, ratio))) };
}

function keepLines(rules: ExtractiveRules, kinds: readonly string[]): ExtractiveRules {
  const alwaysKeep = { ...rules.alwaysKeep };
  const keepPatterns = [...rules.keepPatterns];
  for (const kind of kinds) {
    const flag = LINE_FLAGS[kind];
    if (flag) alwaysKeep[flag] = true;
    const pattern = LINE_PATTERNS[kind];
    if (pattern && !keepPatterns.includes(pattern)) keepPatterns.push(pattern);
  }
  return { ...rules, alwaysKeep, keepPatterns };
}

function list(fields: readonly string[]): string {
  return fields.length <= 4 ? fields.join(', ') : `${fields.slice(0, 4).join(', ')} and ${fields.length - 4} more`;
}

/** Drafts from edits: distinct rules only, none equal to the incumbent's, at most `count`. */
function drafts(incumbent: Guideline, edits: readonly Edit[], count: number): CandidateDraft[] {
  const seen = new Set([canonicalJson(incumbent.rules)]);
  const out: CandidateDraft[] = [];
  for (const edit of edits) {
    if (out.length >= count) break;
    const rules = parseExtractiveRules(edit.rules, { source: `rule edit "${edit.edit}"` });
    const key = canonicalJson(rules);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ guideline: { ...incumbent, rules }, edit: edit.edit });
  }
  return out;
}

/** The utility-step edits, most targeted first (see the module comment). */
export function utilityEdits(incumbent: Guideline, weights: readonly FieldWeight[], count: number): CandidateDraft[] {
  const rules = incumbent.rules;
  const fields = weights.map((w) => w.rule).filter((f) => !f.startsWith('line:') && !rules.jsonKeepFields.includes(f));
  const lines = weights.map((w) => w.rule).filter((f) => f.startsWith('line:'));
  const top = fields.slice(0, 3);
  const up = rules.ratio + RATIO_STEP;
  const edits: Edit[] = [];
  if (top.length > 0) edits.push({ edit: `keep ${list(top)}`, rules: keep(rules, top) });
  if (fields.length > top.length) edits.push({ edit: `keep ${list(fields)}`, rules: keep(rules, fields) });
  if (fields.length > 0)
    edits.push({
      edit: `keep ${list(fields)}; ratio ${rules.ratio} → ${round(Math.min(1, up))}`,
      rules: withRatio(keep(rules, fields), up),
    });
  if (fields.length > 0 || lines.length > 0) {
    edits.push({
      edit: `keep ${list([...fields, ...lines])}; ratio ${rules.ratio} → 1`,
      rules: withRatio(keepLines(keep(rules, fields), lines), 1),
    });
  }
  if (top.length > 0)
    edits.push({ edit: `keep ${list(top)}; ratio ${rules.ratio} → 1`, rules: withRatio(keep(rules, top), 1) });
  edits.push({ edit: `ratio ${rules.ratio} → ${round(Math.min(1, up))}`, rules: withRatio(rules, up) });
  edits.push({ edit: `ratio ${rules.ratio} → 1`, rules: withRatio(rules, 1) });
  if (rules.minScore !== undefined) {
    const lower = round(rules.minScore - MIN_SCORE_STEP);
    edits.push({ edit: `minScore ${rules.minScore} → ${lower}`, rules: { ...rules, minScore: lower } });
  }
  return drafts(incumbent, edits, count);
}

/**
 * The compression-step edits (see the module comment). Dropping fields alone frees budget that other
 * content refills while the ratio allows; so the stronger edits make the needed fields explicit keeps
 * and raise `minScore`, so that whatever no rule keeps goes unless it scores high, or lower the ratio.
 */
export function compressionEdits(incumbent: Guideline, analysis: CompressionAnalysis, count: number): CandidateDraft[] {
  const rules = incumbent.rules;
  const fields = analysis.unneeded.map((u) => u.rule);
  const needed = analysis.needed.filter((f) => !rules.jsonKeepFields.includes(f));
  const top = fields.slice(0, 3);
  const down = round(Math.max(MIN_RATIO, rules.ratio - RATIO_STEP));
  const [higher, highest] =
    rules.minScore === undefined
      ? [0.5, 1]
      : [round(rules.minScore + MIN_SCORE_STEP), round(rules.minScore + 2 * MIN_SCORE_STEP)];
  const all = drop(rules, fields);
  const explicit = keep(all, needed);
  const label = (...parts: string[]) =>
    [needed.length > 0 ? `keep ${list(needed)}` : '', fields.length > 0 ? `drop ${list(fields)}` : '', ...parts]
      .filter(Boolean)
      .join('; ');
  const edits: Edit[] = [];
  if (fields.length > 0) edits.push({ edit: `drop ${list(fields)}`, rules: all });
  edits.push({
    edit: label(`minScore ${rules.minScore ?? 'none'} → ${higher}`),
    rules: { ...explicit, minScore: higher },
  });
  edits.push({
    edit: label(`minScore ${rules.minScore ?? 'none'} → ${highest}`),
    rules: { ...explicit, minScore: highest },
  });
  if (rules.ratio > MIN_RATIO)
    edits.push({ edit: label(`ratio ${rules.ratio} → ${down}`), rules: withRatio(explicit, down) });
  if (top.length > 0 && top.length < fields.length) edits.push({ edit: `drop ${list(top)}`, rules: drop(rules, top) });
  if (fields.length > 0)
    edits.push({
      edit: `drop ${list(fields)}; minScore ${rules.minScore ?? 'none'} → ${higher}`,
      rules: { ...all, minScore: higher },
    });
  if (rules.ratio > MIN_RATIO) edits.push({ edit: `ratio ${rules.ratio} → ${down}`, rules: withRatio(rules, down) });
  return drafts(incumbent, edits, count);
}

/**
 * The offline proposer: the deterministic analysis is the feedback, rule edits are the candidates.
 *
 * @example
 * await optimizeGuideline({ scenario, target: 'observation', proposer: ruleEditProposer() });
 */
export function ruleEditProposer(): GuidelineProposer {
  return {
    name: 'rule-edits',
    utilityFeedback: async (_pair, analysis) => analysis,
    utilityCandidates: async (incumbent, _feedback, weights, k) => utilityEdits(incumbent, weights, k),
    compressionFeedback: async (_task, _trace, analysis) => analysis,
    compressionCandidates: async (incumbent, _feedback, analysis, k) => compressionEdits(incumbent, analysis, k),
  };
}
