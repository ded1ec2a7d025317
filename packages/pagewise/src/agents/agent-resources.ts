/** What an agent runs with, resolved once per agent: its model (with label and context window) and its tools. */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { SystemError } from '../errors.js';
import type { ToolDefinition } from '../context/request.js';
import {
  contextWindowFor,
  modelLabel,
  resolveModel,
  type ModelSpec,
  type ResolveModelOptions,
} from '../models/resolve.js';
import { isProviderModel } from '../models/provider-models.js';
import type { Agent } from './agent.js';
import { TRANSFER_TOOL, transferTool } from './builtin-tools.js';
import { definitionOf } from './tool-execution.js';
import type { AnyTool } from './tool.js';

/** An agent's resolved model. */
export interface ResolvedModel {
  model: LanguageModelV3;
  /** The spec as reports name it. */
  label: string;
  /** Context window in tokens; 0 when unchecked. */
  window: number;
  /**
   * Resolves to true when the model keeps no reference to its prompt: one the runner made from a
   * `provider:model` spec, or a model object that is an AI SDK provider package's own model, unwrapped
   * and unpatched (see `isProviderModel`); such a provider turns the prompt into its request body. False
   * for other model objects (they may record their calls, or wrap middleware that does) and for the
   * offline model (its policies may be the user's).
   */
  keepsNoPrompt: Promise<boolean>;
}

/** Resolves and caches each agent's model and tools for a runner. */
export class AgentResources {
  private readonly models = new Map<Agent, ResolvedModel>();
  private readonly agentTools = new WeakMap<
    Agent,
    { tools: Map<string, AnyTool>; names: ReadonlySet<string>; defs: ToolDefinition[] }
  >();

  constructor(
    private readonly defaults: { model?: ModelSpec; modelOptions?: ResolveModelOptions; contextWindow?: number },
  ) {}

  /** The agent's model, or the runner's default; throws when neither names one. */
  modelOf(agent: Agent): ResolvedModel {
    let resolved = this.models.get(agent);
    if (!resolved) {
      const spec = agent.model ?? this.defaults.model;
      if (spec === undefined) {
        throw new SystemError(
          'no-model',
          `Agent "${agent.name}" has no model and the runner has no default: set \`model\` on the agent or the runner (e.g. "offline").`,
        );
      }
      const model = resolveModel(spec, this.defaults.modelOptions);
      const window = this.defaults.contextWindow ?? contextWindowFor(spec);
      const keepsNoPrompt =
        typeof spec === 'string' ? Promise.resolve(spec !== 'offline') : isProviderModel(model).catch(() => false);
      resolved = { model, label: modelLabel(spec), window, keepsNoPrompt };
      this.models.set(agent, resolved);
    }
    return resolved;
  }

  /** The agent's tools by name and their definitions, with the transfer tool when it has sub-agents. */
  toolsOf(agent: Agent): { tools: Map<string, AnyTool>; names: ReadonlySet<string>; defs: ToolDefinition[] } {
    let cached = this.agentTools.get(agent);
    if (!cached) {
      const list: AnyTool[] = [...agent.tools];
      const targets = agent.transferTargets();
      if (targets.length > 0 && !list.some((x) => x.name === TRANSFER_TOOL)) list.push(transferTool(targets));
      const tools = new Map(list.map((x) => [x.name, x]));
      cached = { tools, names: new Set(tools.keys()), defs: list.map(definitionOf) };
      this.agentTools.set(agent, cached);
    }
    return cached;
  }
}

/** Throws when two agents of the tree share a name: transfers and resumes find agents by name. */
export function assertUniqueNames(root: Agent): void {
  const seen = new Set<string>();
  for (const agent of root.walk()) {
    if (seen.has(agent.name))
      throw new TypeError(`Two agents are named "${agent.name}"; agent names must be unique in a tree.`);
    seen.add(agent.name);
  }
}
