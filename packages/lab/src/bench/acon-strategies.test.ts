import { describe, expect, it } from 'vitest';
import { Agent } from '../../../pagewise/src/agents/agent.js';
import { Runner } from '../../../pagewise/src/agents/runner.js';
import { OfflineModel } from '../../../pagewise/src/models/offline.js';
import { scriptedModel } from '../../../pagewise/src/models/scripted.js';
import { PagingService } from '../../../pagewise/src/paging/service.js';
import {
  checkAnswer,
  createRetailTools,
  retailDataMissing,
  generateRetailTasks,
  loadRetailData,
  RETAIL_INSTRUCTION,
  retailDataAvailable,
  retailOfflinePolicy,
} from '../scenarios/retail/index.js';
import type { ObservationCompressor } from '../../../pagewise/src/compression/observation.js';
import { DEFAULT_HISTORY_GUIDELINE } from '../../../pagewise/src/compression/default-guidelines.js';
import { countTokens } from '../../../pagewise/src/tokens/tokenizer.js';
import { RETAIL_HISTORY_GUIDELINE, RETAIL_OBSERVATION_GUIDELINE } from '../scenarios/retail/guidelines.js';
import {
  ACON_DEFAULTS,
  aconHistoryStrategy,
  aconObservationStrategy,
  aconSettings,
  aconStrategy,
  pagingAconPieces,
  promptingStrategy,
  type CompressionStrategySetup,
} from './acon-strategies.js';
import { registerStandardBench } from './standard.js';

registerStandardBench();

describe('strategy factories', () => {
  it('take the paper defaults, the scenario preset over them, and the options over both', () => {
    expect(aconSettings({})).toEqual(ACON_DEFAULTS);
    const retail = aconSettings({ scenario: 'retail-tool-use' });
    expect(retail).toMatchObject({
      observationThreshold: 256,
      historyThreshold: 1024,
      // No scenario's own guideline: those are learned (acon-learned), never preset by hand.
      historyGuideline: DEFAULT_HISTORY_GUIDELINE,
    });
    // At a budget, C_hist compresses when a request would exceed it (as summarize does), and C_obs is held to
    // a quarter of the room beside the instruction: its threshold lowered, never raised, and its output capped.
    const instruction = 'Answer from the records. '.repeat(20);
    const fixed = countTokens(instruction);
    const fitted = aconSettings({ scenario: 'retail-tool-use', budget: 1200, instruction });
    expect(fitted.budgetTokens).toBe(1200);
    const room = 1200 - fixed;
    expect(fitted.observationThreshold).toBe(Math.min(256, Math.floor(room / 4)));
    expect(fitted.observationMaxTokens).toBe(Math.floor(room / 4));
    expect(aconSettings({ scenario: 'retail-tool-use', budget: 600, instruction }).observationThreshold).toBe(
      Math.floor((600 - fixed) / 4),
    );
    expect(
      aconStrategy({ scenario: 'retail-tool-use', budget: 1200, instruction }).processors?.map((p) => p.name),
    ).toEqual(['acon-hist(extractive, budget 1200, accumulate)']);
    expect(aconSettings({ scenario: 'multi-objective-qa' })).toMatchObject({
      observationThreshold: 400,
      historyThreshold: 2048,
      // The searches of the question being answered (at most 3) stay verbatim after the summary.
      keepLastTurns: 3,
    });
    expect(aconSettings({ scenario: 'retail-tool-use' }, { historyThreshold: 3000, mode: undefined })).toMatchObject({
      historyThreshold: 3000,
      mode: 'accumulate',
    });
  });

  it('build the processors of each strategy, extractive on the offline model, the LLM backend on another', () => {
    const obs = aconObservationStrategy({ model: 'offline' });
    expect(obs.observationProcessors?.map((p) => p.name)).toEqual(['acon-obs(extractive, 1024)']);
    expect(obs.processors).toBeUndefined();
    expect(obs.tools).toBeUndefined();
    expect(aconHistoryStrategy({ model: new OfflineModel() }).processors?.map((p) => p.name)).toEqual([
      'acon-hist(extractive, 4096, accumulate)',
    ]);
    const both = aconStrategy({ model: scriptedModel([]), scenario: 'multi-objective-qa' }, { mode: 'reset' });
    expect(both.processors?.map((p) => p.name)).toEqual(['acon-hist(llm(scripted:scripted), 2048, reset)']);
    expect(both.observationProcessors?.map((p) => p.name)).toEqual(['acon-obs(llm(scripted:scripted), 400)']);
    expect(promptingStrategy({ model: 'offline', scenario: 'retail-tool-use' }).processors?.map((p) => p.name)).toEqual(
      ['summarize(extractive stand-in, 1024)'],
    );
  });

  it('offer page_in bound to the service that holds the raw results, when asked', async () => {
    const setup = aconStrategy({ model: 'offline' }, { pageIn: true });
    expect(setup.tools?.map((t) => t.name)).toEqual(['page_in']);
    const cObs = setup.observationProcessors?.[0] as ObservationCompressor;
    const instruction = setup.instruction?.('Base.');
    expect(typeof instruction).toBe('function');
    expect(cObs.service).toBeInstanceOf(PagingService);
    // A fresh service per episode.
    expect((aconStrategy({ model: 'offline' }).observationProcessors?.[0] as ObservationCompressor).service).not.toBe(
      cObs.service,
    );
  });

  it("give paging+acon the ACON pieces on the paging strategy's own service", () => {
    const service = new PagingService();
    const pieces = pagingAconPieces(service, { model: 'offline' }, { historyGuideline: DEFAULT_HISTORY_GUIDELINE });
    expect((pieces.observationProcessors[0] as ObservationCompressor).service).toBe(service);
    expect(pieces.processors).toHaveLength(1);
  });
});

const available = retailDataAvailable();
if (!available) console.log(`compression strategies on retail tasks: skipped, ${retailDataMissing()}`);

describe.skipIf(!available)('ACON on retail tasks with the offline model', () => {
  // With guidelines that keep the fields these tasks read (the hand-written example guidelines): the
  // machinery itself loses nothing a guideline asks to keep.
  it('with guidelines that keep what the tasks read, keeps every task solved with a much smaller peak', async () => {
    const data = await loadRetailData();
    const tasks = generateRetailTasks(data, { count: 4, seed: 1 });
    const run = async (setup: CompressionStrategySetup, prompt: string) => {
      const agent = new Agent({
        name: 'retail',
        instruction: RETAIL_INSTRUCTION,
        tools: createRetailTools(data),
        ...(setup.processors ? { processors: setup.processors } : {}),
        ...(setup.observationProcessors ? { observationProcessors: setup.observationProcessors } : {}),
      });
      return new Runner({
        agent,
        model: new OfflineModel({ policies: [retailOfflinePolicy] }),
        limits: { maxSteps: 60 },
      }).run({ userId: 'u', message: prompt });
    };
    let nonePeak = 0;
    let aconPeak = 0;
    for (const task of tasks) {
      const none = await run({}, task.prompt);
      const acon = await run(
        aconStrategy(
          { scenario: 'retail-tool-use', model: 'offline' },
          { observationGuideline: RETAIL_OBSERVATION_GUIDELINE, historyGuideline: RETAIL_HISTORY_GUIDELINE },
        ),
        task.prompt,
      );
      expect(checkAnswer(task, none.text)).toBe(true);
      expect(checkAnswer(task, acon.text), `${task.id}: ${acon.text}`).toBe(true);
      // The history was summarized and the raw events kept behind compaction events.
      expect(acon.session.events.some((e) => e.kind === 'compaction')).toBe(true);
      const calls = acon.session.events.flatMap((event) =>
        event.kind === 'model' ? event.toolCalls.map((c) => c.toolCallId) : [],
      );
      const results = acon.session.events.flatMap((e) => (e.kind === 'tool-result' ? [e.toolCallId] : []));
      expect(results).toEqual(calls);
      nonePeak += none.ledger.summary.peakPromptTokens;
      aconPeak += acon.ledger.summary.peakPromptTokens;
    }
    expect(aconPeak / nonePeak).toBeLessThan(0.5);
  });
});
