/**
 * Recognises the AI SDK's own provider models among the model objects a user passes in (`openai('gpt-4.1')`,
 * `anthropic(…)`, `google(…)`, `createOpenAICompatible(…)(…)`): they turn the prompt into a request body and
 * keep no reference to it, so the runner may hand them one prompt array for every step instead of a copy.
 *
 * A model counts as one when its prototype is the very class prototype a model made by that provider
 * package's public factory has (loaded from the package as this process resolves it, so a second copy of
 * the package, a subclass or a `wrapLanguageModel` result does not count), and it has no function of its
 * own beyond those such a model has (so a `doGenerate`, `doStream` or `getArgs` replaced on the object does
 * not count). Anything else may keep the prompt, and gets a copy.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';

/** The class prototypes of a provider package's language models, each with the names of its instances' own functions. */
type Known = Map<object, ReadonlySet<string>>;

interface ProviderPackage {
  /** True when a model's `provider` string may come from this package. */
  matches(provider: string): boolean;
  /** Sample models from the package's public factories; nothing is called, no key or network is needed. */
  samples(): Promise<unknown[]>;
}

const UNUSED_KEY = 'unused-sample-key';

const PACKAGES: readonly ProviderPackage[] = [
  {
    matches: (p) => p.startsWith('openai.'),
    async samples() {
      const openai = (await import('@ai-sdk/openai')).createOpenAI({ apiKey: UNUSED_KEY });
      return [openai('m'), openai.chat('m'), openai.completion('m')];
    },
  },
  {
    matches: (p) => p.startsWith('anthropic.'),
    async samples() {
      return [(await import('@ai-sdk/anthropic')).createAnthropic({ apiKey: UNUSED_KEY })('m')];
    },
  },
  {
    matches: (p) => p.startsWith('google.'),
    async samples() {
      return [(await import('@ai-sdk/google')).createGoogleGenerativeAI({ apiKey: UNUSED_KEY })('m')];
    },
  },
  {
    // An OpenAI-compatible provider is named by its user: `<name>.chat`, `<name>.completion`.
    matches: (p) => p.endsWith('.chat') || p.endsWith('.completion'),
    async samples() {
      const compatible = (await import('@ai-sdk/openai-compatible')).createOpenAICompatible({
        name: 'sample',
        baseURL: 'http://127.0.0.1:9',
      });
      return [compatible.chatModel('m'), compatible.completionModel('m')];
    },
  },
];

const loaded = new Map<ProviderPackage, Promise<Known>>();

/** The known prototypes of `pkg`, loaded once; none when the package is not installed. */
function knownOf(pkg: ProviderPackage): Promise<Known> {
  let known = loaded.get(pkg);
  if (!known) {
    known = pkg.samples().then(
      (samples) => new Map(samples.map((s) => [Object.getPrototypeOf(s) as object, ownFunctions(s)])),
      () => new Map(),
    );
    loaded.set(pkg, known);
  }
  return known;
}

function ownFunctions(target: unknown): Set<string> {
  const names = new Set<string>();
  for (const key of Object.getOwnPropertyNames(target)) {
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    if (descriptor && (typeof descriptor.value === 'function' || descriptor.get || descriptor.set)) names.add(key);
  }
  return names;
}

/**
 * True when `model` is an AI SDK provider package's own language model, unwrapped and unpatched, which
 * keeps no reference to the prompt it is called with (see the module comment for the test applied).
 * Loads the provider package its `provider` string names on first use; false when it is not installed.
 */
export async function isProviderModel(model: LanguageModelV3): Promise<boolean> {
  const proto: unknown = Object.getPrototypeOf(model);
  if (typeof model.provider !== 'string' || !proto || proto === Object.prototype) return false;
  for (const pkg of PACKAGES) {
    if (!pkg.matches(model.provider)) continue;
    const allowed = (await knownOf(pkg)).get(proto);
    if (allowed && [...ownFunctions(model)].every((name) => allowed.has(name))) return true;
  }
  return false;
}
