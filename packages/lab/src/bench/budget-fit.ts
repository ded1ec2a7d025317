/**
 * The context strategies fitted to a prompt-token budget, so every strategy of a run competes at the
 * same size: FIFO keeps as many recent turns as fit, clearing clears the oldest results until the
 * request fits, and ACON's thresholds are set from the room the budget leaves (`aconSettings`). Summarization
 * fits itself (`promptingSummarizer({ budgetTokens })`).
 */
import { z } from 'zod';
import type { AnyTool } from 'pagewise';
import { groupTurns, measureRequest } from 'pagewise/internal';
import { countTokens } from 'pagewise';
import { type ContextItem, type ContextProcessor } from 'pagewise/context';

function checkBudget(name: string, budget: number): void {
  if (!Number.isInteger(budget) || budget < 1)
    throw new RangeError(`${name}: the budget must be a positive integer, got ${budget}.`);
}

/**
 * FIFO at a budget: drops the oldest turns until the request fits, keeping the task's turn and always
 * the last turn (a request that cannot fit then fails at the budget check, as it should).
 */
export function fifoToBudget(budget: number): ContextProcessor {
  checkBudget('fifoToBudget', budget);
  return {
    name: `fifo(budget ${budget})`,
    process(request, ctx) {
      if (measureRequest(request).total <= budget) return;
      const turns = groupTurns(request.items);
      const isTask = (turn: ContextItem[]) => turn[0]?.type === 'user' && turn[0].text === ctx.task;
      const fixed = measureRequest({ ...request, items: [] }).total;
      const cost = turns.map((t) => measureRequest({ instruction: [], items: t, tools: [] }).total);
      let total = fixed + cost.reduce((a, b) => a + b, 0);
      const dropped = new Set<number>();
      for (let turnIndex = 0; turnIndex < turns.length - 1 && total > budget; turnIndex += 1) {
        if (isTask(turns[turnIndex] as ContextItem[])) continue;
        dropped.add(turnIndex);
        total -= cost[turnIndex] ?? 0;
      }
      request.items = turns.filter((_, i) => !dropped.has(i)).flat();
    },
  };
}

/** The placeholder of a cleared result. */
export const CLEARED_RESULT = '[result cleared to save context; call the tool again if you need it]';

/**
 * Tool-result clearing at a budget: replaces the oldest tool results with a placeholder until the
 * request fits; the results of the latest step are never cleared.
 */
export function clearToBudget(budget: number): ContextProcessor {
  checkBudget('clearToBudget', budget);
  const placeholderTokens = countTokens(CLEARED_RESULT);
  return {
    name: `clear-tool-results(budget ${budget})`,
    process(request) {
      let total = measureRequest(request).total;
      if (total <= budget) return;
      const items = request.items;
      let latest = items.length;
      while (latest > 0 && items[latest - 1]?.type === 'tool-result') latest -= 1;
      for (let itemIndex = 0; itemIndex < latest && total > budget; itemIndex += 1) {
        const item = items[itemIndex] as ContextItem;
        if (item.type !== 'tool-result' || item.output === CLEARED_RESULT) continue;
        total -= countTokens(item.output) - placeholderTokens;
        items[itemIndex] = { ...item, output: CLEARED_RESULT };
      }
    },
  };
}

/** Tokens of an agent's instruction and tool definitions: the part of every request no strategy shrinks. */
export function fixedPromptTokens(instruction: string, tools: readonly AnyTool[]): number {
  let total = countTokens(instruction);
  for (const tool of tools) {
    let schema: unknown = {};
    try {
      schema = z.toJSONSchema(tool.inputSchema);
    } catch {
      // A schema zod cannot render is counted by its name and description only.
    }
    total += countTokens(JSON.stringify({ name: tool.name, description: tool.description, parameters: schema }));
  }
  return total;
}
