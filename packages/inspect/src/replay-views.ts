/**
 * Replay reports (`pagewise replay --out`) in the inspector: the strategies side by side (tokens saved and
 * used-later recall, baselines beside the compressors), the fields each lost, and its worst losses, each lost
 * value marked beside what the compressed request held instead. A report file is read as untrusted input:
 * validated on load, and every string of it rendered as escaped text.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ReplayReport } from '@pagewise/lab/replay';
import { z } from 'zod';
import { escapeHtml, html, num, SafeHtml, showInvisible } from './html.js';

/** A replay report as loaded. */
export interface LoadedReplay {
  /** The file it was read from. */
  file: string;
  report: ReplayReport;
}

// Only what the views read is checked; other fields pass through untouched.
const ReportSchema = z.looseObject({
  traces: z.number(),
  toolResults: z.number(),
  modelCalls: z.number(),
  uses: z.number(),
  tracesWithOutcome: z.number(),
  strategies: z.array(
    z.looseObject({
      name: z.string(),
      kind: z.string(),
      baseline: z.boolean(),
      peakTokens: z.number(),
      cumulativeTokens: z.number(),
      peakSaved: z.number(),
      tokensSaved: z.number(),
      uses: z.number(),
      lost: z.number(),
      recall: z.number(),
      weightedRecall: z.number().optional(),
      fields: z.array(
        z.looseObject({ tool: z.string(), field: z.string(), uses: z.number(), lost: z.number(), recall: z.number() }),
      ),
      worstLosses: z.array(
        z.looseObject({
          trace: z.string(),
          step: z.number(),
          tool: z.string(),
          field: z.string(),
          value: z.string(),
          keptInstead: z.string(),
        }),
      ),
    }),
  ),
});

/** The report file of `where`: the file itself, or `replay.json` in a folder. */
async function reportFile(where: string): Promise<string> {
  const info = await stat(where);
  return info.isDirectory() ? path.join(where, 'replay.json') : where;
}

/** Reads replay reports; a file that is missing or not a replay report is an error line, not a crash. */
export async function loadReplays(paths: readonly string[]): Promise<{ loaded: LoadedReplay[]; errors: string[] }> {
  const loaded: LoadedReplay[] = [];
  const errors: string[] = [];
  for (const where of paths) {
    try {
      const file = await reportFile(where);
      const parsed = ReportSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        errors.push(`${file}: not a replay report (${issue?.path.join('.') || 'top level'}: ${issue?.message}).`);
        continue;
      }
      loaded.push({ file, report: parsed.data as unknown as ReplayReport });
    } catch (error) {
      errors.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { loaded, errors };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * `text` escaped, with every occurrence of `value` (case ignored) in a `<mark>`: both are escaped before
 * the match, so nothing in either can become markup.
 */
export function markValue(text: string, value: string): SafeHtml {
  const escaped = showInvisible(escapeHtml(text));
  const needle = showInvisible(escapeHtml(value));
  if (!needle) return new SafeHtml(escaped);
  const lower = escaped.toLowerCase();
  const target = needle.toLowerCase();
  let out = '';
  let at = 0;
  for (let i = lower.indexOf(target); i >= 0; i = lower.indexOf(target, i + target.length)) {
    out += `${escaped.slice(at, i)}<mark>${escaped.slice(i, i + target.length)}</mark>`;
    at = i + target.length;
  }
  return new SafeHtml(out + escaped.slice(at));
}

/** The list of opened replay reports. */
export function replaysIndexPage(all: readonly LoadedReplay[], errors: readonly string[]): SafeHtml {
  return html`<h1>Replay reports</h1>
    ${errors.map((e) => html`<p class="err">${e}</p>`)}${
      all.length
        ? html`<table class="list">
            <thead>
              <tr>
                <th>report</th>
                <th class="r">traces</th>
                <th class="r">tool results</th>
                <th class="r">used-later values</th>
                <th>strategies</th>
              </tr>
            </thead>
            <tbody>
              ${all.map(
                (r, i) =>
                  html`<tr>
                    <td><a class="replay" href="/replays/${i}">${r.file}</a></td>
                    <td class="r">${num(r.report.traces)}</td>
                    <td class="r">${num(r.report.toolResults)}</td>
                    <td class="r">${num(r.report.uses)}</td>
                    <td>${r.report.strategies.map((s) => s.name).join(', ')}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p class="empty">
            No replay report opened. Start with <code>pagewise inspect --replay ./replay-report</code> (a
            <code>pagewise replay --out</code> folder or its <code>replay.json</code>).
          </p>`
    }`;
}

/** One replay report: the strategies side by side, then per strategy what it lost. */
export function replayPage(i: number, r: LoadedReplay): SafeHtml {
  const { report } = r;
  return html`<h1>Replay of ${report.traces} trace(s)</h1>
    <p class="sub">
      ${r.file} · ${report.toolResults} tool results · ${report.modelCalls} model calls · ${report.uses} used-later
      values · ${report.tracesWithOutcome} trace(s) with an outcome
    </p>
    <p><img src="/replays/${i}/chart.svg" alt="Tokens saved against used-later recall, per strategy" /></p>
    <table class="list" id="strategies">
      <thead>
        <tr>
          <th>strategy</th>
          <th></th>
          <th class="r">peak tokens</th>
          <th class="r">peak saved</th>
          <th class="r">cumulative tokens</th>
          <th class="r">tokens saved</th>
          <th class="r">used-later recall</th>
          <th class="r">weighted recall</th>
          <th class="r">lost</th>
        </tr>
      </thead>
      <tbody>
        ${report.strategies.map(
          (s) =>
            html`<tr class="${s.lost > 0 ? 'lossy' : ''}">
              <td><a href="#s-${s.name}">${s.name}</a></td>
              <td>${s.baseline ? 'baseline' : s.kind}</td>
              <td class="r">${num(s.peakTokens)}</td>
              <td class="r">${pct(s.peakSaved)}</td>
              <td class="r">${num(s.cumulativeTokens)}</td>
              <td class="r">${pct(s.tokensSaved)}</td>
              <td class="r">${pct(s.recall)}</td>
              <td class="r">${s.weightedRecall === undefined ? '–' : pct(s.weightedRecall)}</td>
              <td class="r">${s.lost}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${report.strategies.filter((s) => s.lost > 0).map((s) => strategyLosses(s))}`;
}

function strategyLosses(s: ReplayReport['strategies'][number]): SafeHtml {
  return html`<h2 id="s-${s.name}">${s.name}: ${s.lost} lost of ${s.uses}</h2>
    <table class="list fields">
      <thead>
        <tr>
          <th>tool</th>
          <th>field</th>
          <th class="r">uses</th>
          <th class="r">lost</th>
          <th class="r">recall</th>
        </tr>
      </thead>
      <tbody>
        ${s.fields
          .filter((f) => f.lost > 0)
          .slice(0, 20)
          .map(
            (f) =>
              html`<tr>
                <td>${f.tool}</td>
                <td>${f.field}</td>
                <td class="r">${f.uses}</td>
                <td class="r">${f.lost}</td>
                <td class="r">${pct(f.recall)}</td>
              </tr>`,
          )}
      </tbody>
    </table>
    <table class="list losses">
      <thead>
        <tr>
          <th>trace</th>
          <th class="r">step</th>
          <th>tool · field</th>
          <th>the value the model used</th>
          <th>what its request held instead</th>
        </tr>
      </thead>
      <tbody>
        ${s.worstLosses.map(
          (l) =>
            html`<tr>
              <td>${l.trace}</td>
              <td class="r">${l.step}</td>
              <td>${l.tool} · ${l.field}</td>
              <td class="lost"><mark>${l.value}</mark></td>
              <td class="kept"><pre>${markValue(l.keptInstead, l.value)}</pre></td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}
