/**
 * A session's history kept between the steps of a run: its events converted to items once, the items
 * rendered to messages once, and their token counts summed as they are appended, so building,
 * measuring and rendering a step's request costs what was appended since the last step and what the
 * processors changed, not the whole history again.
 */
import type { LanguageModelV3FunctionTool, LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { SessionEvent } from '../session/types.js';
import { emptyParts, type PartTokens } from '../tokens/ledger.js';
import type { PromptContinuity } from '../tokens/prompt-cache.js';
import type { EncodingName } from '../tokens/tokenizer.js';
import { eventsToItems, eventToItem } from './history.js';
import {
  countInstruction,
  itemTokenCount,
  latestObservationStart,
  renderItem,
  renderMessages,
  renderTools,
  stepBlockMessage,
  systemText,
  toolsTokenCount,
  type ContextItem,
  type ContextRequest,
} from './request.js';

type ToolMessage = Extract<LanguageModelV3Message, { role: 'tool' }>;

/** Stands in `RequestHistory`'s kept messages for the system message; replaced in every prompt that has one, else sliced off. */
const SYSTEM_SLOT: LanguageModelV3Message = Object.freeze({ role: 'system', content: '' });

let histories = 0;

/**
 * The history items of one session, with what a request needs of them, kept up to date by
 * {@link RequestHistory.sync}. {@link RequestHistory.measure} and {@link RequestHistory.render} give
 * exactly what `measureRequest` and `renderPrompt` give for the same request; items the processors
 * left in place (same object at the same index) are taken from the running totals and the rendered
 * messages, the others are counted and rendered as those functions would.
 */
export class RequestHistory {
  /** The history items of the events synced so far. Read-only for everyone but this class. */
  readonly items: ContextItem[] = [];
  private count = 0;
  private first: SessionEvent | undefined;
  private last: SessionEvent | undefined;
  /**
   * A placeholder at index 0 where a prompt puts its system message, then the messages of `items`: one
   * per non-tool-result item, one per run of tool results. With the slot in place, a prompt is a single
   * `slice` of this array, with or without a system message and whatever prefix the processors kept.
   */
  private readonly messages: LanguageModelV3Message[] = [SYSTEM_SLOT];
  /** For each item, the index of its message in `messages`. */
  private readonly messageOf: number[] = [];
  /** Per encoding, running token sums: `sums[i]` is the count of `items[0..i)`. */
  private readonly sums = new Map<EncodingName, number[]>();
  /** True while the last entry of `messages` is the step block of a reused prompt, not a history message. */
  private stepBlockKept = false;
  private readonly id = (histories += 1);
  private renders = 0;
  /** The lowest index of `messages` replaced or removed since the last render. */
  private changedFrom = Infinity;
  /** The last render's kept messages, `messages[1..keptEnd)`, and whether it had a system message. */
  private keptEnd = 0;
  private keptSystem = false;
  /** What the latest render's prompt shares with the one before it, for the prompt-cache model. */
  continuity: PromptContinuity = { source: this.id, render: 0, unchanged: 0 };

  /**
   * Brings the items up to date with `events`: converts only the events appended since the last sync.
   * A compaction among them, or a list that changed other than by appending, rebuilds everything.
   */
  sync(events: readonly SessionEvent[]): void {
    this.dropStepBlock();
    const appended =
      this.count <= events.length &&
      (this.count === 0 || (events[0] === this.first && events[this.count - 1] === this.last));
    let rebuild = !appended;
    for (let index = this.count; index < events.length && !rebuild; index++)
      rebuild = events[index]!.kind === 'compaction';
    if (rebuild) {
      this.reset();
      for (const item of eventsToItems(events)) this.push(item);
    } else {
      for (let index = this.count; index < events.length; index++) {
        const item = eventToItem(events[index]!);
        if (item) this.push(item);
      }
    }
    this.count = events.length;
    this.first = events[0];
    this.last = events[events.length - 1];
  }

  /**
   * Counts `request`'s prompt tokens by part, as `measureRequest` does. Items equal (by identity, at the
   * same index) to this history's are read from the running sums; the rest are counted per item.
   */
  measure(request: ContextRequest, encoding: EncodingName): { parts: PartTokens; total: number } {
    const parts = emptyParts();
    countInstruction(request.instruction, parts, encoding);
    const sums = this.sumsFor(encoding);
    const items = request.items;
    const obsStart = latestObservationStart(items);
    const shared = this.sharedPrefix(items);
    parts.history = this.rangeTokens(items, 0, obsStart, shared, sums, encoding);
    parts.observation = this.rangeTokens(items, obsStart, items.length, shared, sums, encoding);
    parts.tools = toolsTokenCount(request.tools, encoding);
    const total = parts.instruction + parts.paged + parts.history + parts.observation + parts.tools;
    return { parts, total };
  }

  /**
   * Renders `request` as `renderPrompt` does (system message, history, step block): the messages of the
   * items this history holds (a prefix left in place by the processors) are reused, the rest rendered.
   * The messages in the prompt are shared and read-only. The prompt array is new, unless `reusePrompt` is
   * true and the request is the whole history with a system message (the usual step): then it is the
   * kept array itself, the step block pushed at its end, which later syncs and renders change in place;
   * only for a model that keeps no reference to its prompt.
   */
  render(
    request: ContextRequest,
    reusePrompt = false,
  ): { prompt: LanguageModelV3Prompt; tools: LanguageModelV3FunctionTool[] } {
    this.dropStepBlock();
    const items = request.items;
    let shared = this.sharedPrefix(items);
    const whole = shared === items.length && shared === this.items.length;
    // A run of tool results renders as one message, and the processors may have changed how the run
    // goes on: a shared prefix that ends in a run starts at the beginning of that run instead.
    if (!whole) while (shared > 0 && items[shared - 1]!.type === 'tool-result') shared -= 1;
    const end = whole ? this.messages.length : shared === 0 ? 1 : this.messageOf[shared - 1]! + 1;
    const system = systemText(request);
    const step = stepBlockMessage(request);
    this.noteRender(end, system !== '');
    if (reusePrompt && system && whole) {
      // The caller knows the model keeps no reference: the kept array is the prompt, no copy. The step
      // block is taken off again before the next sync or render.
      this.messages[0] = { role: 'system', content: system };
      if (step) {
        this.messages.push(step);
        this.stepBlockKept = true;
      }
      return { prompt: this.messages, tools: renderTools(request.tools) };
    }
    // Unless reused, exactly one copy of the kept messages, whatever the path: the model may keep the prompt it was
    // given, so the kept array, which grows, is never handed out. The copy is the one cost of a step
    // that grows with the history.
    const prompt = this.messages.slice(system ? 0 : 1, end);
    if (system) prompt[0] = { role: 'system', content: system };
    renderMessages(items, shared, prompt);
    if (step) prompt.push(step);
    return { prompt, tools: renderTools(request.tools) };
  }

  /**
   * Records what this render's prompt, whose kept messages are `messages[1..end)`, shares with the last
   * one: the kept messages of both up to the first replaced since, when both have a system message or
   * neither does (the prompt's indexes are then the same).
   */
  private noteRender(end: number, system: boolean): void {
    const kept = this.renders > 0 && system === this.keptSystem ? Math.min(end, this.keptEnd, this.changedFrom) : 0;
    this.renders += 1;
    this.continuity = { source: this.id, render: this.renders, unchanged: Math.max(0, system ? kept : kept - 1) };
    this.changedFrom = Infinity;
    this.keptEnd = end;
    this.keptSystem = system;
  }

  /** Takes the step block of a reused prompt off the kept messages, so they are the history's again. */
  private dropStepBlock(): void {
    if (!this.stepBlockKept) return;
    this.messages.pop();
    this.stepBlockKept = false;
  }

  /** How many leading items of `items` are this history's own, by identity. */
  private sharedPrefix(items: readonly ContextItem[]): number {
    if (items === this.items) return items.length;
    const limit = Math.min(items.length, this.items.length);
    let shared = 0;
    while (shared < limit && items[shared] === this.items[shared]) shared++;
    return shared;
  }

  /** Tokens of `items[from..to)`: from the running sums where an item is this history's own, else counted. */
  private rangeTokens(
    items: readonly ContextItem[],
    from: number,
    to: number,
    shared: number,
    sums: readonly number[],
    encoding: EncodingName,
  ): number {
    let tokens = 0;
    let index = from;
    if (from < shared) {
      index = Math.min(to, shared);
      tokens = sums[index]! - sums[from]!;
    }
    for (; index < to; index++) {
      const item = items[index]!;
      // A processor that replaced some items keeps the rest at their index (tool-result clearing):
      // those are still read from the sums.
      tokens +=
        index < this.items.length && item === this.items[index]
          ? sums[index + 1]! - sums[index]!
          : itemTokenCount(item, encoding);
    }
    return tokens;
  }

  private sumsFor(encoding: EncodingName): number[] {
    let sums = this.sums.get(encoding);
    if (!sums) {
      sums = [0];
      for (const item of this.items) sums.push(sums[sums.length - 1]! + itemTokenCount(item, encoding));
      this.sums.set(encoding, sums);
    }
    return sums;
  }

  private push(item: ContextItem): void {
    const index = this.items.length;
    const previous = this.items[index - 1];
    this.items.push(item);
    for (const [encoding, sums] of this.sums) sums.push(sums[index]! + itemTokenCount(item, encoding));
    const rendered = renderItem(item);
    if ('role' in rendered) {
      this.messageOf.push(this.messages.length);
      this.messages.push(rendered);
    } else if (previous?.type === 'tool-result') {
      // The result joins the tool message of the results before it: a new message, since rendered
      // messages may already be in a prompt handed to a model.
      const messageIndex = this.messageOf[index - 1]!;
      const run = this.messages[messageIndex] as ToolMessage;
      this.messages[messageIndex] = { role: 'tool', content: [...run.content, rendered] };
      this.changedFrom = Math.min(this.changedFrom, messageIndex);
      this.messageOf.push(messageIndex);
    } else {
      this.messageOf.push(this.messages.length);
      this.messages.push({ role: 'tool', content: [rendered] });
    }
  }

  private reset(): void {
    this.items.length = 0;
    this.messages.length = 1;
    this.messages[0] = SYSTEM_SLOT;
    this.changedFrom = 0;
    this.messageOf.length = 0;
    this.sums.clear();
  }
}
