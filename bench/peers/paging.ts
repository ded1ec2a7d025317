/**
 * The paging experiment: the instruction-paging pattern built directly on ADK JS, exactly as the
 * pattern describes it (reports live in session state; `get_reports` writes the wanted URIs to
 * `temp:want_read` and returns only "N loaded"; an instruction provider expands the wanted reports;
 * `save_result` keeps the running result in state), against pagewise's paging on the same 164
 * generated reports, driven by the same scripted reader. Both are measured on the requests their
 * model receives, serialized and counted the same way.
 */
import { z } from 'zod';
import { loadPagewise } from './pagewise.js';

const N_REPORTS = 164;
const BATCH = 10;
const SEED = 7;
const RESULT_ID = 'answer-partial';

/** One setup's figures over every question. */
export interface PagingRow {
  setup: string;
  /** Largest single request, tokens. */
  peak: number;
  /** Mean over questions of the sum of request tokens. */
  cumulative: number;
  calls: number;
  exact: number;
  questions: number;
  /** Most tokens the page block added beyond "uri + newline + body" per page and its saved-result lines. */
  fenceOverhead?: number;
  /** Pages still in the instruction of the last model call (mean over questions). */
  finalPages: number;
}

const BASE = (reportCount: number) =>
  `You answer the user's question from ${reportCount} business reports. Call get_reports with up to ${BATCH} report URLs; ` +
  `their texts then appear in this instruction, replacing the previous batch. After reading a batch, merge what it ` +
  `contributes into your running result and save it with save_result (task_id "${RESULT_ID}"), in the same step ` +
  `as loading the next batch. When every report is read, answer.`;

/** One request as both setups see it: the system text, the history as lines, the tool declarations. */
interface SeenRequest {
  system: string;
  lines: string[];
  tools: { name: string; description: string; schema: unknown }[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function requestTokens(pw: any, request: SeenRequest): number {
  let tokens = pw.countTokens(request.system);
  for (const line of request.lines) tokens += pw.countTokens(line);
  for (const tool of request.tools)
    tokens += pw.countTokens(`${tool.name}: ${tool.description} ${JSON.stringify(tool.schema)}`);
  return tokens;
}

/**
 * The scripted reader: reads the reports in its prompt, folds them into the saved partial answer it
 * finds in its prompt, saves it while loading the next batch, and answers when all are read. It knows
 * the URI list (as a plan would give it) and nothing else: a report not in its prompt is not counted.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function reader(pw: any, spec: unknown, uris: string[], pagesOf: (system: string) => string[]) {
  let requested = 0;
  return (system: string): { calls: { name: string; args: Record<string, unknown> }[] } | { text: string } => {
    const pages = pagesOf(system);
    const match = new RegExp(`^- ${RESULT_ID}: (.*)$`, 'm').exec(system);
    const saved = match ? pw.parsePartial(match[1]) : undefined;
    const next = uris.slice(requested, requested + BATCH);
    const load = next.length ? [{ name: 'get_reports', args: { urls: next } }] : [];
    if (pages.length > 0 && (saved?.read ?? 0) < requested) {
      const batch = pw.partialAnswer(spec, pw.findReports(pages.join('\n')));
      const merged = saved ? pw.mergePartials(spec, saved, batch) : batch;
      requested += next.length;
      return {
        calls: [{ name: 'save_result', args: { task_id: RESULT_ID, result: pw.serializePartial(merged) } }, ...load],
      };
    }
    if (load.length) {
      requested += next.length;
      return { calls: load };
    }
    return { text: pw.formatAnswer(spec, pw.combinePartials(spec, saved ? [saved] : [])) };
  };
}

/** The ADK JS pattern on one question. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function adkPattern(pw: any, reports: any[], question: any) {
  const { BaseLlm, LlmAgent, FunctionTool, InMemoryRunner } = await import('@google/adk');
  const uris = reports.map((r) => r.uri as string);
  const pagesOf = (system: string) => system.split(/^--- \S+ ---$/m).slice(1);
  const decide = reader(pw, pw.parseQuestion(question.text), uris, pagesOf);
  const seen: SeenRequest[] = [];
  const headers: number[] = [];
  class ScriptedLlm extends BaseLlm {
    constructor() {
      super({ model: 'scripted' });
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async *generateContentAsync(req: any) {
      const si = req.config?.systemInstruction;
      const system =
        typeof si === 'string' ? si : ((si?.parts ?? []) as { text?: string }[]).map((p) => p.text ?? '').join('\n');
      const lines: string[] = [];
      for (const content of req.contents ?? [])
        for (const part of content.parts ?? []) {
          if (part.text) lines.push(`${content.role}: ${part.text}`);
          if (part.functionCall) lines.push(`call ${part.functionCall.name} ${JSON.stringify(part.functionCall.args)}`);
          if (part.functionResponse) {
            const resp = part.functionResponse.response;
            lines.push(
              `result ${part.functionResponse.name}: ${typeof resp?.result === 'string' ? resp.result : JSON.stringify(resp)}`,
            );
          }
        }
      const tools = (req.config?.tools ?? []).flatMap((tool: { functionDeclarations?: unknown[] }) =>
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        (tool.functionDeclarations ?? []).map((declaration: any) => ({
          name: declaration.name,
          description: declaration.description ?? '',
          schema: declaration.parametersJsonSchema ?? declaration.parameters,
        })),
      );
      seen.push({ system, lines, tools });
      const heads = [...system.matchAll(/^--- (\S+) ---$/gm)];
      headers.push(heads.reduce((s, h) => s + pw.countTokens(`${h[0]}\n`) - pw.countTokens(`${h[1]}\n`), 0));
      const decision = decide(system);
      yield (
        'text' in decision
          ? { content: { role: 'model', parts: [{ text: decision.text }] } }
          : {
              content: {
                role: 'model',
                parts: decision.calls.map((call, index) => ({
                  functionCall: { id: `c${seen.length}-${index}`, name: call.name, args: call.args },
                })),
              },
            }
      ) as never;
    }
    async connect(): Promise<never> {
      throw new Error('live connections are not scripted');
    }
  }
  const byUri = new Map(reports.map((r) => [r.uri as string, r.body as string]));
  const agent = new LlmAgent({
    name: 'analyst',
    model: new ScriptedLlm(),
    // The pattern's instruction provider: the base, the saved results, then every wanted report from state.
    instruction: (ctx) => {
      const parts = [BASE(uris.length)];
      const results = Object.entries(ctx.state.toRecord?.() ?? {}).filter(([k]) => k.startsWith('result:'));
      if (results.length)
        parts.push(`Saved results:\n${results.map(([k, v]) => `- ${k.slice(7)}: ${String(v)}`).join('\n')}`);
      const want = (ctx.state.get('temp:want_read') as string[] | undefined) ?? [];
      for (const uri of want) parts.push(`--- ${uri} ---\n${String(ctx.state.get(`report:${uri}`) ?? '')}`);
      return parts.join('\n');
    },
    tools: [
      new FunctionTool({
        name: 'get_reports',
        description: `Load up to ${BATCH} reports by URL into your instruction.`,
        parameters: z.object({ urls: z.array(z.string()).max(BATCH) }),
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        execute: async ({ urls }: { urls: string[] }, ctx?: any) => {
          ctx.state.set('temp:want_read', urls);
          return `${urls.length} loaded`;
        },
      } as never),
      new FunctionTool({
        name: 'save_result',
        description: 'Save an intermediate result under a task id.',
        parameters: z.object({ task_id: z.string(), result: z.string() }),
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        execute: async ({ task_id, result }: { task_id: string; result: string }, ctx?: any) => {
          ctx.state.set(`result:${task_id}`, result);
          return 'saved';
        },
      } as never),
    ],
  });
  const runner = new InMemoryRunner({ agent, appName: 'paging' });
  // Session state is the disk: every report is stored there before the run.
  const state: Record<string, string> = {};
  for (const [uri, body] of byUri) state[`report:${uri}`] = body;
  const session = await runner.sessionService.createSession({ appName: 'paging', userId: 'u', state });
  let text = '';
  for await (const event of runner.runAsync({
    userId: 'u',
    sessionId: session.id,
    newMessage: { role: 'user', parts: [{ text: question.text }] },
    runConfig: { maxLlmCalls: 100 } as never,
  }))
    for (const part of event.content?.parts ?? []) if (part.text) text = part.text;
  return { seen, text, finalPages: pagesOf(seen.at(-1)!.system).length, headers };
}

/** pagewise paging on one question, with compaction of paging turns (these options), or full history. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function pagewisePaging(pw: any, reports: any[], question: any, compact: object | undefined) {
  const uris = reports.map((r) => r.uri as string);
  const byUri = new Map(reports.map((r) => [r.uri as string, r]));
  const pagesOf = (system: string) => pw.parseFencedPages(system).pages.map((p: { body: string }) => p.body);
  const decide = reader(pw, pw.parseQuestion(question.text), uris, pagesOf);
  const seen: SeenRequest[] = [];
  const overheads: number[] = [];
  let ids = 0;
  const model = {
    specificationVersion: 'v3' as const,
    provider: 'scripted',
    modelId: 'scripted',
    supportedUrls: {},
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async doGenerate(options: any) {
      let system = '';
      const lines: string[] = [];
      for (const message of options.prompt) {
        if (message.role === 'system') system += message.content;
        // The step block (working set, saved results) is the instruction's per-step part, rendered after the
        // history so the prefix stays cached: read as instruction, as the offline model's prompt view does.
        else if (message.providerOptions?.pagewise?.stepBlock === true)
          for (const part of message.content) system += part.type === 'text' ? `\n\n${part.text}` : '';
        else
          for (const part of message.content) {
            if (part.type === 'text') lines.push(`${message.role}: ${part.text}`);
            if (part.type === 'tool-call')
              lines.push(
                `call ${part.toolName} ${typeof part.input === 'string' ? part.input : JSON.stringify(part.input)}`,
              );
            if (part.type === 'tool-result')
              lines.push(
                `result ${part.toolName}: ${typeof part.output?.value === 'string' ? part.output.value : JSON.stringify(part.output?.value)}`,
              );
          }
      }
      const tools = (options.tools ?? []).map((tool: { name: string; description?: string; inputSchema: unknown }) => ({
        name: tool.name,
        description: tool.description ?? '',
        schema: tool.inputSchema,
      }));
      seen.push({ system, lines, tools });
      const parsed = pw.parseFencedPages(system);
      if (parsed.pages.length) {
        const start = system.lastIndexOf('\n', system.indexOf(' follow: untrusted data')) + 1;
        // The preface names the closing line too: the block ends at the closing line after the preface.
        const close = `\n<<<END ${parsed.boundary}>>>`;
        const block = system.slice(start, system.indexOf(close, system.indexOf('\n', start)) + close.length);
        const bare = parsed.pages.reduce(
          (s: number, p: { uri: string; body: string }) => s + pw.countTokens(`${p.uri}\n${p.body}\n`),
          0,
        );
        // Saved results open the block as "- id: text" lines, as the pattern writes them: counted as bare too.
        const lines = block.split('\n').slice(1);
        const notes = lines.slice(
          0,
          lines.findIndex((l: string) => l.startsWith('<<<')),
        );
        overheads.push(pw.countTokens(block) - bare - (notes.length ? pw.countTokens(`${notes.join('\n')}\n`) : 0));
      }
      const decision = decide(system);
      const content =
        'text' in decision
          ? [{ type: 'text', text: decision.text }]
          : decision.calls.map((call) => ({
              type: 'tool-call',
              toolCallId: `c${++ids}`,
              toolName: call.name,
              input: JSON.stringify(call.args),
            }));
      return {
        content,
        finishReason: { unified: 'text' in decision ? 'stop' : 'tool-calls', raw: undefined },
        usage: {
          inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined },
        },
        warnings: [],
      };
    },
    async doStream(): Promise<never> {
      throw new Error('streaming is not scripted');
    },
  };
  const source = pw.loaderSource(
    'reports',
    (u: string) => byUri.has(u),
    (u: string) => ({ body: byUri.get(u).body, title: byUri.get(u).title, mediaType: 'text/markdown' }),
  );
  const service = new pw.PagingService({ source, maxPagesPerRead: BATCH });
  const tools = pw.createPagingTools(service);
  const agent = new pw.Agent({
    name: 'analyst',
    instruction: pw.pagedInstruction({ base: BASE(uris.length), service }),
    tools: [tools.get_reports, tools.save_result],
    ...(compact !== undefined ? { processors: [pw.compactPagingTurns(compact)] } : {}),
  });
  const runner = new pw.Runner({ agent, model, contextWindow: 0, limits: { maxSteps: 100 } });
  const result = await runner.run({ userId: 'u', message: question.text });
  return { seen, text: result.text as string, finalPages: pagesOf(seen.at(-1)!.system).length, overheads };
}

/** Runs the experiment over the generated questions and returns one row per setup. */
export async function pagingExperiment(): Promise<PagingRow[]> {
  const pw = await loadPagewise();
  const scen = await import(
    new URL('../../packages/lab/dist/scenarios/report-analysis/index.js', import.meta.url).href
  );
  Object.assign(pw, scen);
  const reports = pw.generateReports(N_REPORTS, SEED);
  const questions = pw.generateQuestions(reports, SEED);
  const setups: [
    string,
    (
      q: unknown,
    ) => Promise<{ seen: SeenRequest[]; text: string; finalPages: number; overheads?: number[]; headers?: number[] }>,
  ][] = [
    ['ADK JS pattern (instruction provider + temp:want_read)', (q) => adkPattern(pw, reports, q)],
    ['pagewise paging + compactPagingTurns', (q) => pagewisePaging(pw, reports, q, {})],
    // The newest paging turn kept even when the instruction shows all it says (the default before).
    [
      'pagewise paging + compactPagingTurns({ keepShownTurns: true })',
      (q) => pagewisePaging(pw, reports, q, { keepShownTurns: true }),
    ],
    ['pagewise paging, full history', (q) => pagewisePaging(pw, reports, q, undefined)],
  ];
  const rows: PagingRow[] = [];
  for (const [setup, run] of setups) {
    let peak = 0;
    let cumulative = 0;
    let calls = 0;
    let exact = 0;
    let finalPages = 0;
    let overhead: number | undefined;
    for (const question of questions) {
      const result = await run(question);
      const tokens = result.seen.map((s) => requestTokens(pw, s));
      peak = Math.max(peak, ...tokens);
      cumulative += tokens.reduce((a, b) => a + b, 0);
      calls += result.seen.length;
      finalPages += result.finalPages;
      if (pw.isCorrect(result.text, question.gold)) exact += 1;
      const overheads = result.overheads ?? result.headers;
      if (overheads?.length) overhead = Math.max(overhead ?? 0, ...overheads);
    }
    rows.push({
      setup,
      peak,
      cumulative: Math.round(cumulative / questions.length),
      calls: Math.round(calls / questions.length),
      exact,
      questions: questions.length,
      ...(overhead !== undefined ? { fenceOverhead: overhead } : {}),
      finalPages: finalPages / questions.length,
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await pagingExperiment());
