/**
 * Agents: a name, a model, an instruction re-evaluated before every model call, tools, sub-agents, and
 * the context processors that shape its requests.
 */
import type { ContextProcessor, InstructionSection } from '../context/request.js';
import type { ObservationProcessor } from '../context/observation.js';
import type { ModelSpec } from '../models/resolve.js';
import type { JsonValue, Session } from '../session/types.js';
import type { AnyTool } from './tool.js';

/** What an instruction provider can read. */
export interface InstructionContext {
  /** The merged state view, `temp:` keys of this invocation included. Read-only. */
  state: Readonly<Record<string, JsonValue>>;
  session: Readonly<Session>;
  invocationId: string;
  agentName: string;
  services: ReadonlyMap<string, unknown>;
}

/**
 * Computes the instruction before each model call. It may return sections to label paged content for
 * the ledger.
 */
export type InstructionProvider = (
  ctx: InstructionContext,
) => string | InstructionSection[] | Promise<string | InstructionSection[]>;

/** Configuration of an {@link Agent}. */
export interface AgentConfig {
  name: string;
  description?: string;
  /** The model; the runner's default model when omitted. */
  model?: ModelSpec;
  instruction?: string | InstructionProvider;
  tools?: AnyTool[];
  subAgents?: Agent[];
  /** Context processors run after the built-in instruction and history stages, in order. */
  processors?: ContextProcessor[];
  /** Processors applied to each tool result before it is appended. */
  observationProcessors?: ObservationProcessor[];
}

/** An agent. Sub-agents get this agent as their parent, which makes transfers possible both ways. */
export class Agent {
  readonly name: string;
  readonly description: string;
  readonly model: ModelSpec | undefined;
  readonly instruction: string | InstructionProvider;
  readonly tools: readonly AnyTool[];
  readonly subAgents: readonly Agent[];
  readonly processors: readonly ContextProcessor[] | undefined;
  readonly observationProcessors: readonly ObservationProcessor[] | undefined;
  private parentAgent: Agent | undefined;

  constructor(config: AgentConfig) {
    if (!/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/.test(config.name)) {
      throw new TypeError(
        `Agent name "${config.name}" must start with a letter or "_" and use letters, digits, "_" or "-" (at most 64).`,
      );
    }
    this.name = config.name;
    this.description = config.description ?? '';
    this.model = config.model;
    this.instruction = config.instruction ?? '';
    this.tools = config.tools ?? [];
    this.subAgents = config.subAgents ?? [];
    this.processors = config.processors;
    this.observationProcessors = config.observationProcessors;
    const names = new Set<string>();
    for (const tool of this.tools) {
      if (names.has(tool.name)) throw new TypeError(`Agent "${this.name}" has two tools named "${tool.name}".`);
      names.add(tool.name);
    }
    for (const sub of this.subAgents) {
      if (sub.parentAgent && sub.parentAgent !== this)
        throw new TypeError(`Agent "${sub.name}" already has parent "${sub.parentAgent.name}".`);
      sub.parentAgent = this;
    }
  }

  get parent(): Agent | undefined {
    return this.parentAgent;
  }

  /** The agent and all its descendants, depth first. */
  *walk(): Generator<Agent> {
    yield this;
    for (const sub of this.subAgents) yield* sub.walk();
  }

  /** Finds an agent by name in this agent's tree. */
  find(name: string): Agent | undefined {
    for (const agent of this.walk()) if (agent.name === name) return agent;
    return undefined;
  }

  /** Agents this one may transfer to: its sub-agents, its parent, and its peers. */
  transferTargets(): Agent[] {
    const out = [...this.subAgents];
    if (this.parentAgent) {
      out.push(this.parentAgent);
      for (const peer of this.parentAgent.subAgents) if (peer !== this) out.push(peer);
    }
    return out;
  }
}
