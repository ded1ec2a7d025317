/**
 * OpenTelemetry spans for pagewise runs, following the GenAI semantic conventions: one span per
 * invocation (`invoke_agent`), model call (`chat`), tool call (`execute_tool`), context or observation
 * processor (compression among them), compressor model call, and page-in. Only `@opentelemetry/api` is
 * used: with no tracer provider registered every span is a no-op.
 *
 * With `recordContent` on, each agent `chat` span also carries the request and the response
 * (`gen_ai.system_instructions`, `gen_ai.input.messages`, `gen_ai.output.messages`), so a span export can
 * be replayed; off by default, since it puts user data and tool results into the trace backend.
 *
 * Token attributes are the ledger's: `gen_ai.usage.input_tokens` is the prompt as counted locally with
 * the project's tokenizer (comparable across providers), the provider's own figure sits beside it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { LedgerEntry } from '../tokens/ledger.js';
import { contentAttributes } from './content.js';
import type { InvocationInfo, InvocationTelemetry, ModelCallContent, RunTelemetry } from './types.js';

// @opentelemetry/api loads when telemetry is created, not when pagewise is imported
// (test/packaging/lean-import.test.ts). It is CommonJS for Node either way, so this is the instance an application's
// own `import '@opentelemetry/api'` gets, and the two share the registered provider.
const requireCjs = createRequire(import.meta.url);
let openTelemetryModule: typeof OpenTelemetryApi | undefined;
function openTelemetry(): typeof OpenTelemetryApi {
  openTelemetryModule ??= requireCjs('@opentelemetry/api') as typeof OpenTelemetryApi;
  return openTelemetryModule;
}

/** Tools whose calls load pages into the working set; each gets a `pagewise.page_in` span. */
export const PAGE_IN_TOOLS: readonly string[] = ['get_reports', 'page_in', 'read_frame'];

/** Options of {@link pagewiseTelemetry}. */
export interface TelemetryOptions {
  /** The tracer to use. Default: `trace.getTracer('pagewise')` of the global provider (a no-op when none is registered). */
  tracer?: Tracer;
  /**
   * Put each agent model call's messages on its `chat` span: the system instructions, the request's
   * messages (user messages, earlier responses, tool results) and the response (text and tool calls), as
   * JSON strings under `gen_ai.system_instructions`, `gen_ai.input.messages` and `gen_ai.output.messages`
   * (OpenTelemetry GenAI semantic conventions). Needed to replay a span export (`pagewise replay`).
   *
   * Privacy: this sends what users wrote and what tools returned (personal data, records, documents) to
   * every span exporter and the backend behind it, kept as long as the traces are. Secrets of the
   * environment (values of variables named like keys, tokens or passwords) and URL userinfo are redacted,
   * nothing else is. Compressor calls record no content. Default: false.
   */
  recordContent?: boolean;
}

/** `provider:model` labels carry the provider name before the colon. */
function providerOf(model: string): string {
  const colon = model.indexOf(':');
  return colon > 0 ? model.slice(0, colon) : model;
}

function usageAttributes(entry: LedgerEntry): Attributes {
  return {
    'gen_ai.usage.input_tokens': entry.promptTokens,
    'gen_ai.usage.output_tokens': entry.completionTokens,
    ...(entry.providerPromptTokens !== undefined
      ? { 'pagewise.usage.provider_input_tokens': entry.providerPromptTokens }
      : {}),
    ...(entry.providerCompletionTokens !== undefined
      ? { 'pagewise.usage.provider_output_tokens': entry.providerCompletionTokens }
      : {}),
    'pagewise.tokens.instruction': entry.parts.instruction,
    'pagewise.tokens.paged': entry.parts.paged,
    'pagewise.tokens.history': entry.parts.history,
    'pagewise.tokens.observation': entry.parts.observation,
    'pagewise.tokens.tools': entry.parts.tools,
  };
}

function fail(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : new Error(String(error)));
  span.setStatus({
    code: openTelemetry().SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

/**
 * Creates the runner's telemetry. Pass it as `telemetry` in the Runner options.
 *
 * @example
 * import { trace } from '@opentelemetry/api';
 * const runner = new Runner({ agent, telemetry: pagewiseTelemetry({ tracer: trace.getTracer('my-app') }) });
 */
export function pagewiseTelemetry(options: TelemetryOptions = {}): RunTelemetry {
  const { context: otelContext, trace, SpanKind } = openTelemetry();
  const tracer = options.tracer ?? trace.getTracer('pagewise');
  const running = new Map<string, InvocationTelemetry>();
  // The span a compressor call or page-in nests under: the tool or processor running in this async flow.
  const parentSpan = new AsyncLocalStorage<Span>();
  const recordContent = options.recordContent === true;

  return {
    current: (invocationId) => running.get(invocationId),
    startInvocation(info: InvocationInfo): InvocationTelemetry {
      const root = tracer.startSpan(`invoke_agent ${info.agentName}`, {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': info.agentName,
          'gen_ai.conversation.id': info.sessionId,
          'pagewise.invocation.id': info.invocationId,
          'pagewise.app.name': info.appName,
        },
      });
      const rootContext = trace.setSpan(otelContext.active(), root);
      const contextOf = (span: Span | undefined) => (span ? trace.setSpan(rootContext, span) : rootContext);
      // The content of the agent call the runner records next (it reports it right before the ledger entry).
      let pending: ModelCallContent | undefined;

      // Model calls are known once the ledger has them: the span is placed at the call's own time.
      const stop = info.ledger.subscribe((entry) => {
        const end = entry.at;
        const start = end - entry.modelMs;
        const compressor = entry.kind === 'compressor';
        const content = entry.kind === 'agent' && entry.invocationId === info.invocationId ? pending : undefined;
        if (content) pending = undefined;
        const span = tracer.startSpan(
          `chat ${entry.model}`,
          {
            kind: SpanKind.CLIENT,
            startTime: start,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.request.model': entry.model,
              'gen_ai.provider.name': providerOf(entry.model),
              'gen_ai.agent.name': compressor ? info.agentName : entry.agent,
              'pagewise.call.kind': entry.kind,
              ...(compressor ? { 'pagewise.compressor': entry.agent } : {}),
              ...usageAttributes(entry),
              ...(content ? contentAttributes(content) : {}),
            },
          },
          contextOf(compressor ? parentSpan.getStore() : undefined),
        );
        span.end(end);
      });

      const within = async <T>(span: Span, run: () => Promise<T>): Promise<T> => {
        try {
          return await parentSpan.run(span, () => otelContext.with(contextOf(span), run));
        } catch (error) {
          fail(span, error);
          throw error;
        } finally {
          span.end();
        }
      };

      const handle: InvocationTelemetry = {
        // Only when content is recorded: the runner copies a reused prompt for this hook.
        ...(recordContent
          ? {
              modelContent(content: ModelCallContent) {
                pending = content;
              },
            }
          : {}),
        tool(call, agentName, run) {
          const span = tracer.startSpan(
            `execute_tool ${call.toolName}`,
            {
              kind: SpanKind.INTERNAL,
              attributes: {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': call.toolName,
                'gen_ai.tool.call.id': call.toolCallId,
                'gen_ai.tool.type': 'function',
                'gen_ai.agent.name': agentName,
              },
            },
            rootContext,
          );
          if (PAGE_IN_TOOLS.includes(call.toolName)) {
            const pageIn = tracer.startSpan(
              'pagewise.page_in',
              { kind: SpanKind.INTERNAL, attributes: { 'pagewise.page_in.tool': call.toolName } },
              contextOf(span),
            );
            const inner = run;
            run = () => within(pageIn, inner);
          }
          return within(span, run);
        },
        processor(name, kind, run) {
          const span = tracer.startSpan(
            `pagewise.process ${name}`,
            {
              kind: SpanKind.INTERNAL,
              attributes: { 'pagewise.processor.name': name, 'pagewise.processor.kind': kind },
            },
            contextOf(parentSpan.getStore()),
          );
          return within(span, run);
        },
        end(error) {
          stop();
          running.delete(info.invocationId);
          if (error !== undefined) fail(root, error);
          root.end();
        },
      };
      running.set(info.invocationId, handle);
      return handle;
    },
  };
}
