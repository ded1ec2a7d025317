/**
 * Model resolution: a spec string (`openai:gpt-4.1-mini`, `anthropic:…`, `google:…`,
 * `openai-compatible:<id>`, `offline`) becomes an AI SDK LanguageModelV3; an instance passes through.
 * Also the known context windows and prices per model.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { ConfigurationError, MissingApiKeyError } from '../errors.js';
import { createOfflineModel, type OfflinePolicy } from './offline.js';

/** A model: a spec string or a LanguageModelV3 instance. */
export type ModelSpec = string | LanguageModelV3;

/** Environment variables read by {@link resolveModel}. */
export const MODEL_ENV = {
  openai: 'OPENAI_API_KEY',
  /** Where `openai:` models are sent (an OpenAI-compatible server speaking the Responses API). */
  openaiBaseUrl: 'OPENAI_BASE_URL',
  /** `1` or `true`: let OpenAI store Responses API requests (see {@link ResolveModelOptions.openaiStore}). */
  openaiStore: 'PAGEWISE_OPENAI_STORE',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY',
  compatibleBaseUrl: 'PAGEWISE_OPENAI_COMPATIBLE_BASE_URL',
  compatibleKey: 'PAGEWISE_OPENAI_COMPATIBLE_API_KEY',
} as const;

/** Options of {@link resolveModel}. */
export interface ResolveModelOptions {
  /** Where keys are read from; `process.env` by default. */
  env?: Record<string, string | undefined>;
  /** Policies for the `offline` model. */
  offlinePolicies?: OfflinePolicy[];
  /**
   * Whether `openai:` models (the Responses API) may store requests and responses on OpenAI's side.
   * Default false: every request carries `store: false`, since that endpoint stores by default and an
   * agent's prompts hold the user's documents. `PAGEWISE_OPENAI_STORE=1` in the environment turns it on
   * when this is not given.
   */
  openaiStore?: boolean;
}

function requireEnv(env: Record<string, string | undefined>, variable: string, provider: string): string {
  const value = env[variable];
  if (!value) throw new MissingApiKeyError(variable, provider);
  return value;
}

/**
 * A provider's model, loaded on its first call: a process that never calls OpenAI does not pay for loading
 * the OpenAI provider. Configuration errors (a missing key or base URL) are still raised when resolving.
 */
class LazyProviderModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  private loaded: Promise<LanguageModelV3> | undefined;

  constructor(
    readonly provider: string,
    readonly modelId: string,
    private readonly load: () => Promise<LanguageModelV3>,
    private readonly prepare: (options: LanguageModelV3CallOptions) => LanguageModelV3CallOptions = (o) => o,
  ) {}

  private model(): Promise<LanguageModelV3> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  get supportedUrls(): PromiseLike<Record<string, RegExp[]>> {
    return this.model().then((m) => m.supportedUrls);
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    return (await this.model()).doGenerate(this.prepare(options));
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    return (await this.model()).doStream(this.prepare(options));
  }
}

/**
 * Resolves a model spec to a LanguageModelV3. Provider packages load on the model's first call.
 *
 * @example
 * const model = resolveModel('openai:gpt-4.1-mini'); // needs OPENAI_API_KEY
 * const local = resolveModel('offline');             // needs nothing
 */
export function resolveModel(spec: ModelSpec, options: ResolveModelOptions = {}): LanguageModelV3 {
  if (typeof spec !== 'string') {
    if (spec?.specificationVersion !== 'v3') {
      throw new ConfigurationError(
        'bad-model',
        'The model instance is not an AI SDK LanguageModelV3 (specificationVersion "v3"). Use ai@6 providers.',
      );
    }
    return spec;
  }
  const env = options.env ?? process.env;
  if (spec === 'offline') return createOfflineModel({ policies: options.offlinePolicies });
  const colon = spec.indexOf(':');
  const provider = colon > 0 ? spec.slice(0, colon) : '';
  const id = colon > 0 ? spec.slice(colon + 1) : '';
  if (!provider || !id) {
    throw new ConfigurationError(
      'bad-model-spec',
      `Model spec "${spec}" is not of the form "provider:model". Use e.g. "openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5", "google:gemini-2.5-flash", "openai-compatible:llama3.1", or "offline".`,
    );
  }
  switch (provider) {
    case 'offline':
      throw new ConfigurationError(
        'bad-model-spec',
        `The offline model has no variants: use "offline" alone, not "${spec}".`,
      );
    case 'openai': {
      const apiKey = requireEnv(env, MODEL_ENV.openai, 'OpenAI');
      const rawBase = env[MODEL_ENV.openaiBaseUrl];
      // Read here, not by the provider from process.env, so `modelOptions.env` decides it too.
      const baseURL = rawBase ? checkBaseUrl(rawBase, MODEL_ENV.openaiBaseUrl, MODEL_ENV.openai) : undefined;
      const store = options.openaiStore ?? /^(?:1|true)$/i.test(env[MODEL_ENV.openaiStore] ?? '');
      // The default OpenAI model speaks the Responses API, which stores requests unless told not to.
      return new LazyProviderModel(
        provider,
        id,
        async () => (await import('@ai-sdk/openai')).createOpenAI({ apiKey, ...(baseURL ? { baseURL } : {}) })(id),
        (call) => ({
          ...call,
          providerOptions: { ...call.providerOptions, openai: { store, ...call.providerOptions?.openai } },
        }),
      );
    }
    case 'anthropic': {
      const apiKey = requireEnv(env, MODEL_ENV.anthropic, 'Anthropic');
      return new LazyProviderModel(provider, id, async () =>
        (await import('@ai-sdk/anthropic')).createAnthropic({ apiKey })(id),
      );
    }
    case 'google': {
      const apiKey = requireEnv(env, MODEL_ENV.google, 'Google');
      return new LazyProviderModel(provider, id, async () =>
        (await import('@ai-sdk/google')).createGoogleGenerativeAI({ apiKey })(id),
      );
    }
    case 'openai-compatible': {
      const baseURL = env[MODEL_ENV.compatibleBaseUrl];
      if (!baseURL) {
        throw new ConfigurationError(
          'missing-base-url',
          `No base URL for the OpenAI-compatible server: set ${MODEL_ENV.compatibleBaseUrl} (e.g. http://localhost:11434/v1 for Ollama).`,
        );
      }
      checkBaseUrl(baseURL, MODEL_ENV.compatibleBaseUrl, MODEL_ENV.compatibleKey);
      const apiKey = env[MODEL_ENV.compatibleKey];
      return new LazyProviderModel(provider, id, async () =>
        (await import('@ai-sdk/openai-compatible'))
          // Usage in streams too, so the ledger has the provider's figures beside its own count.
          .createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey, includeUsage: true })
          .chatModel(id),
      );
    }
    default:
      throw new ConfigurationError(
        'unknown-provider',
        `Unknown model provider "${provider}" in "${spec}". Known: openai, anthropic, google, openai-compatible, offline.`,
      );
  }
}

/** Returns `baseURL` when it is an http(s) URL without credentials; else a ConfigurationError naming `variable` (and `keyVariable`, where the key belongs). */
function checkBaseUrl(baseURL: string, variable: string, keyVariable: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(baseURL);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new ConfigurationError(
      'bad-base-url',
      `${variable} is not an http(s) URL; set it to the server's API root, e.g. http://localhost:11434/v1 for Ollama.`,
    );
  }
  if (parsed.username || parsed.password) {
    // fetch refuses such URLs, and a key there ends up in logs; the URL itself is not repeated here.
    throw new ConfigurationError(
      'bad-base-url',
      `${variable} carries credentials (user:key@host); remove them and put the key in ${keyVariable}.`,
    );
  }
  return baseURL;
}

/** The id a spec is reported under in ledgers and results. */
export function modelLabel(spec: ModelSpec): string {
  return typeof spec === 'string' ? spec : `${spec.provider}:${spec.modelId}`;
}

const WINDOWS: [RegExp, number][] = [
  [/^offline$/, 128_000],
  [/gpt-4\.1/, 1_047_576],
  [/gpt-5/, 400_000],
  [/gpt-4o|o1|o3|o4/, 128_000],
  [/gpt-4-turbo/, 128_000],
  [/gpt-3\.5/, 16_385],
  [/claude/, 200_000],
  [/gemini/, 1_048_576],
];

/** Default context window when nothing is known about a model. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The context window of a model spec in tokens (known limits per model; 128k for `offline`). */
export function contextWindowFor(spec: ModelSpec): number {
  const label = modelLabel(spec).toLowerCase();
  for (const [re, window] of WINDOWS) if (re.test(label)) return window;
  return DEFAULT_CONTEXT_WINDOW;
}

export { DEFAULT_PRICES, type ModelPrice } from '../tokens/prices.js';
