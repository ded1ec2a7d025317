/**
 * The progress file of an optimization run (`progress.json` under its output folder): every finished
 * episode's trace, keyed by (guideline hash, task, mode), and every optimizer model answer, keyed by
 * its prompt, with the calls and tokens spent so far (an answer that could not be read is counted but
 * not kept). A run started again with the same folder reads it and repeats no finished work. It is written atomically (temporary file, then rename), at most
 * every few seconds while episodes finish and always when a step ends or the run stops.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { ScenarioTask } from '../bench/scenario.js';
import { ConfigurationError, StorageError } from 'pagewise';
import { canonicalJson, shortHash } from './hash.js';
import { EpisodeTraceSchema, type EpisodeMode, type EpisodeTrace } from './trace.js';

/** Version of the progress file; a file of another version is refused with what to do. */
export const OPTIMIZE_PROGRESS_SCHEMA = 1;

/** What evaluations depend on besides the guideline and the task; a resumed run must match it. */
export interface OptimizeFingerprint {
  scenario: string;
  target: string;
  /** The agent's model label. */
  model: string;
  /** The compressor backend's label. */
  compressor: string;
}

/** An optimizer model answer, kept so a resumed run does not ask again. */
export interface OptimizerCallRecord {
  purpose: string;
  text: string;
  promptTokens: number;
  completionTokens: number;
}

const ProgressSchema = z.object({
  schema: z.literal(OPTIMIZE_PROGRESS_SCHEMA),
  fingerprint: z.object({ scenario: z.string(), target: z.string(), model: z.string(), compressor: z.string() }),
  evaluations: z.record(z.string(), EpisodeTraceSchema),
  optimizerCalls: z.record(
    z.string(),
    z.object({ purpose: z.string(), text: z.string(), promptTokens: z.number(), completionTokens: z.number() }),
  ),
  usage: z.object({ calls: z.number(), tokens: z.number() }),
});

type ProgressData = z.infer<typeof ProgressSchema>;

/** The file name of the progress file in an output folder. */
export const PROGRESS_FILE = 'progress.json';

/** How often, at most, the file is rewritten while episodes finish. */
const SAVE_INTERVAL_MS = 2000;

/**
 * The key of one evaluation: the mode, the guideline's behaviour hash, the task id and a hash of the
 * task's content (so a task id reused for different content is not mistaken for a finished episode).
 */
export function evaluationKey(mode: EpisodeMode, guidelineHash: string | null, task: ScenarioTask): string {
  return `${mode}|${guidelineHash ?? '-'}|${task.id}|${shortHash(canonicalJson(task)).slice(0, 8)}`;
}

/** Reads, updates and saves a progress file; with no folder, keeps everything in memory. */
export class OptimizeProgress {
  private dirty = false;
  private lastSave = 0;
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    private readonly data: ProgressData,
    /** The file, or undefined when the run keeps no progress. */
    readonly file: string | undefined,
  ) {}

  /**
   * Opens the progress of `dir` (a new one when the folder has none).
   *
   * @throws ConfigurationError when the file is of another run (scenario, target, model or compressor
   *   differ) or unreadable, naming the file and what to do.
   */
  static async open(dir: string | undefined, fingerprint: OptimizeFingerprint): Promise<OptimizeProgress> {
    const fresh: ProgressData = {
      schema: OPTIMIZE_PROGRESS_SCHEMA,
      fingerprint,
      evaluations: {},
      optimizerCalls: {},
      usage: { calls: 0, tokens: 0 },
    };
    if (dir === undefined) return new OptimizeProgress(fresh, undefined);
    const file = path.join(dir, PROGRESS_FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new OptimizeProgress(fresh, file);
      throw new StorageError(`Cannot read the progress file ${file}: ${(error as Error).message}.`, error);
    }
    let parsed: ProgressData;
    try {
      parsed = ProgressSchema.parse(JSON.parse(text));
    } catch (error) {
      throw new ConfigurationError(
        'invalid-progress',
        `The progress file ${file} cannot be read (${(error as Error).message.slice(0, 300)}). Delete it to start the optimization over, or use another --out folder.`,
        error,
      );
    }
    const differing = (Object.keys(fingerprint) as (keyof OptimizeFingerprint)[]).filter(
      (k) => parsed.fingerprint[k] !== fingerprint[k],
    );
    if (differing.length > 0) {
      const what = differing.map((k) => `${k} "${parsed.fingerprint[k]}" there, "${fingerprint[k]}" now`).join('; ');
      throw new ConfigurationError(
        'progress-mismatch',
        `The progress file ${file} belongs to another optimization (${what}). Use another --out folder, or delete the file to start over.`,
      );
    }
    return new OptimizeProgress(parsed, file);
  }

  /** Optimizer calls and tokens spent so far, this run and the ones it resumes. */
  get usage(): { calls: number; tokens: number } {
    return { ...this.data.usage };
  }

  /** How many episodes the file holds. */
  get evaluationCount(): number {
    return Object.keys(this.data.evaluations).length;
  }

  evaluation(key: string): EpisodeTrace | undefined {
    return this.data.evaluations[key];
  }

  /** Records a finished episode; saved soon (see the module comment). */
  async putEvaluation(key: string, trace: EpisodeTrace): Promise<void> {
    this.data.evaluations[key] = trace;
    this.dirty = true;
    if (Date.now() - this.lastSave >= SAVE_INTERVAL_MS) await this.save();
  }

  optimizerCall(key: string): OptimizerCallRecord | undefined {
    return this.data.optimizerCalls[key];
  }

  /** Records an optimizer answer and what it cost, and saves at once (it cost money). */
  async putOptimizerCall(key: string, call: OptimizerCallRecord): Promise<void> {
    this.data.optimizerCalls[key] = call;
    await this.countOptimizerCall(call);
  }

  /**
   * Counts what an optimizer answer cost without keeping it: an answer that could not be read is no
   * finished work, so a resumed run asks again instead of replaying it. A cached answer under `key`
   * (an unreadable one an older version kept) is dropped.
   */
  async countOptimizerCall(
    call: Pick<OptimizerCallRecord, 'promptTokens' | 'completionTokens'>,
    key?: string,
  ): Promise<void> {
    if (key !== undefined) delete this.data.optimizerCalls[key];
    this.data.usage.calls += 1;
    this.data.usage.tokens += call.promptTokens + call.completionTokens;
    this.dirty = true;
    await this.save();
  }

  /** Writes the file if anything changed; saves never overlap. */
  async save(): Promise<void> {
    const file = this.file;
    if (file === undefined || !this.dirty) return;
    this.dirty = false;
    this.lastSave = Date.now();
    const text = JSON.stringify(this.data);
    // A failed earlier save is reported by the call that made it; it must not fail every later one.
    this.saving = this.saving
      .catch(() => undefined)
      .then(async () => {
        await mkdir(path.dirname(file), { recursive: true });
        const temporary = `${file}.${process.pid}.tmp`;
        await writeFile(temporary, text);
        await rename(temporary, file);
      });
    await this.saving;
  }
}
