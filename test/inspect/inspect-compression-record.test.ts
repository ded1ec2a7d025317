/**
 * Issue 40, item 7: with the default in-memory page store the compression view said `guideline not recorded ·
 * ratio – (3577 of ? tokens)`. The tool-result event now records how it was compressed (guideline, backend, original
 * tokens), so the view is complete from the session store alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InspectData } from '../../packages/inspect/src/data.js';
import { openSqliteReadOnly } from '../../packages/inspect/src/db.js';
import { createInspectorApp } from '../../packages/inspect/src/server.js';
import { Agent } from '../../packages/pagewise/src/agents/agent.js';
import { Runner } from '../../packages/pagewise/src/agents/runner.js';
import { tool, type AnyTool } from '../../packages/pagewise/src/agents/tool.js';
import { DEFAULT_OBSERVATION_GUIDELINE } from '../../packages/pagewise/src/compression/default-guidelines.js';
import { observationCompressor } from '../../packages/pagewise/src/compression/observation.js';
import { PagingService } from '../../packages/pagewise/src/paging/service.js';
import { createPagingTools } from '../../packages/pagewise/src/paging/tools.js';
import { scriptedModel } from '../../packages/pagewise/src/models/scripted.js';
import type { ToolResultEvent } from '../../packages/pagewise/src/session/types.js';
import { countTokens } from '../../packages/pagewise/src/tokens/tokenizer.js';
import { SqliteSessionStore } from '../../packages/sqlite/src/sqlite-store.js';

const REPORT = Array.from(
  { length: 150 },
  (_, index) => `Order #W${1000 + index}: status shipped, total ${(index * 3.7).toFixed(2)} USD, carrier UPS.`,
).join('\n');

describe('the compression view without a persistent page store', () => {
  let dir: string;
  let file: string;
  const events = new Map<string, ToolResultEvent>();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-inspect-record-'));
    file = path.join(dir, 'store.db');
    const store = new SqliteSessionStore({ path: file });
    const lookup = tool({
      name: 'lookup',
      description: 'reads the order report',
      inputSchema: z.object({}),
      execute: () => REPORT,
    });
    // The paging service's default page store keeps the raw result in memory only, as the CLI's default does.
    const paging = new PagingService();
    const run = async (sessionId: string, tools: AnyTool[]) => {
      await new Runner({
        agent: new Agent({ name: 'analyst', tools }),
        model: scriptedModel([{ toolCalls: [{ toolName: 'lookup', input: {} }] }, 'Order #W1000 shipped.']),
        store,
        observationProcessors: [observationCompressor({ service: paging, thresholdTokens: 100 })],
      }).run({ userId: 'u', sessionId, message: 'Which orders shipped?' });
      const session = await store.getSession({ appName: 'pagewise', userId: 'u', sessionId });
      events.set(
        sessionId,
        session!.events.find((e): e is ToolResultEvent => e.kind === 'tool-result')!,
      );
    };
    try {
      // With page_in the compressed result carries a handle to the raw one; without it, only the size.
      await run('with-handle', [lookup, createPagingTools(paging).page_in]);
      await run('no-handle', [lookup]);
    } finally {
      await store.close();
    }
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records the guideline, the backend and the original size on the event', () => {
    const guideline = DEFAULT_OBSERVATION_GUIDELINE;
    expect(events.get('with-handle')!.output).toContain('page_in uris');
    expect(events.get('with-handle')!.compression).toEqual(events.get('no-handle')!.compression);
    expect(events.get('with-handle')!.compression).toEqual({
      guideline: `${guideline.id}@${guideline.version}`,
      backend: 'extractive',
      originalTokens: countTokens(REPORT),
    });
  });

  it.each(['with-handle', 'no-handle'])(
    '%s: shows the guideline and the ratio, not "not recorded" and "?"',
    async (sessionId) => {
      const app = createInspectorApp({ data: new InspectData(openSqliteReadOnly(file)), runs: [] });
      const query = new URLSearchParams({ a: 'pagewise', u: 'u', s: sessionId }).toString();
      const page = await (await app.request(`/compression?${query}`)).text();
      const guideline = DEFAULT_OBSERVATION_GUIDELINE;
      expect(page).toContain(`<b class="guideline">${guideline.id}@${guideline.version}</b> · backend extractive`);
      expect(page).not.toContain('not recorded');
      const stated = /<b class="ratio">([\d.]+)<\/b>\s*\((\d+) of (\d+)\s+tokens\)/.exec(page);
      expect(stated, page.slice(0, 2000)).not.toBeNull();
      const [, ratio, compressed, original] = stated!;
      expect(Number(original)).toBe(countTokens(REPORT));
      expect(Number(ratio)).toBeCloseTo(Number(compressed) / Number(original), 3);
      expect(Number(ratio)).toBeLessThan(1);
      // The raw text itself was in memory only: the view says so instead of pretending.
      expect(page).toContain('The raw text is not in this store');
    },
  );
});
