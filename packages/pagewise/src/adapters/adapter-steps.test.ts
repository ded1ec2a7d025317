import { describe, expect, it } from 'vitest';
import type { AnyTool } from '../agents/tool.js';
import { PagingService } from '../paging/service.js';
import { DEFAULT_PAGING_TOOLS, PAGING_TOOL_NAMES } from '../paging/tools.js';
import { Ledger } from '../tokens/ledger.js';
import { pagingHook } from './adapter-steps.js';

class Threads {}

describe('pagingHook', () => {
  const service = new PagingService({});
  const wrap = (tool: AnyTool, threads: Threads) => ({ tool, threads });

  it('offers every paging tool but get_reports by default, in order, each wrapped once and bound to new thread sessions', () => {
    let made = 0;
    const hook = pagingHook({ service }, () => (made++, new Threads()), wrap);
    expect(made).toBe(1);
    // get_reports is page_in in replace mode under the pattern's name: offered only when asked for.
    expect(hook.tools.map(([name]) => name)).toEqual(PAGING_TOOL_NAMES.filter((name) => name !== 'get_reports'));
    expect(DEFAULT_PAGING_TOOLS).toEqual(hook.tools.map(([name]) => name));
    for (const [name, wrapped] of hook.tools) {
      expect(wrapped.tool.name).toBe(name);
      expect(wrapped.threads).toBe(hook.threads);
    }
    expect(hook).not.toHaveProperty('processors');
    expect(hook).not.toHaveProperty('ledger');
  });

  it('offers only the tools asked for, in the order asked, on the thread sessions given, with the ledger and processors', () => {
    const threads = new Threads();
    const ledger = new Ledger();
    const hook = pagingHook(
      { service, threads, ledger, processors: [], tools: ['page_out', 'get_reports'], instruction: 'Answer briefly.' },
      () => {
        throw new Error('the given thread sessions are used');
      },
      wrap,
    );
    expect(hook.threads).toBe(threads);
    expect(hook.ledger).toBe(ledger);
    expect(hook.processors).toEqual([]);
    expect(hook.tools.map(([name]) => name)).toEqual(['page_out', 'get_reports']);
    expect(hook.tools.every(([, wrapped]) => wrapped.threads === threads)).toBe(true);
    expect(typeof hook.instruction).toBe('function');
  });
});
