/**
 * `pagewise/telemetry`: OpenTelemetry GenAI spans of runs, model calls and tool calls through `@opentelemetry/api`
 * (a no-op until the application registers a tracer provider).
 */
export { PAGE_IN_TOOLS, pagewiseTelemetry, type TelemetryOptions } from './telemetry/tracing.js';
export type { InvocationInfo, InvocationTelemetry, ModelCallContent, RunTelemetry } from './telemetry/types.js';
