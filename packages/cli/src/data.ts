/**
 * `pagewise data fetch <name>`: downloads the third-party data a benchmark needs from its original repository at a
 * pinned commit, checks each file's SHA-256, and stores it in the user data folder, where the benchmarks find it.
 * The project ships none of this data. An interrupted download resumes where it stopped.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigurationError, SystemError } from 'pagewise';
import { DATA_DIR_ENV, userDataDir } from 'pagewise/internal';
import { intOption, parseCommand } from './args.js';
import { didYouMean } from './suggest.js';

/** One file of a data set: where it is upstream, where it goes, its expected SHA-256 and size. */
export interface DataFile {
  upstream: string;
  target: string;
  sha256: string;
  /** The pinned file's size in bytes: a download is cut off past it (plus {@link sizeCap}'s slack). */
  bytes: number;
}

/** A data set: its repository, the pinned commit, its licence and its files. */
export interface DataSet {
  repository: string;
  commit: string;
  licence: string;
  files: DataFile[];
}

/** The data sets the benchmarks use (see the data README of the project for what each holds). */
export const DATA_SETS: Readonly<Record<string, DataSet>> = {
  'tau-retail': {
    repository: 'sierra-research/tau-bench',
    commit: '59a200c',
    licence: 'MIT',
    files: [
      {
        upstream: 'tau_bench/envs/retail/data/users.json',
        target: 'tau-retail/users.json',
        sha256: '6f4fd104cc5e80b92166c4035315c31532c6cea52a90dcdf18425ee7f87c2b82',
        bytes: 322_932,
      },
      {
        upstream: 'tau_bench/envs/retail/data/orders.json',
        target: 'tau-retail/orders.json',
        sha256: '2598a12586d28f2d6bd16bc86f4c800029b6af18e0abb5c475ef5c869c11ced1',
        bytes: 1_810_945,
      },
      {
        upstream: 'tau_bench/envs/retail/data/products.json',
        target: 'tau-retail/products.json',
        sha256: 'a9eabcc1a9742c5f5288c2779acce52b9308423383ed24706bbaf0889f762a0f',
        bytes: 172_258,
      },
      {
        upstream: 'LICENSE',
        target: 'tau-retail/LICENSE',
        sha256: '243d23d45b80122b5ac575586ccef352fdc9c45e6d7d2605449aca8a17478b42',
        bytes: 1_063,
      },
    ],
  },
  hotpotqa: {
    repository: 'JianGuanTHU/AMOR',
    commit: 'f950e63',
    licence: 'CC BY-SA 4.0',
    files: [
      {
        upstream: 'data/hotpotqa/dev.json',
        target: 'hotpotqa/dev.jsonl',
        sha256: '96296f21ea67a6e7b18017f657f7c1181e3aebdbd337993500f3280a1c4d7c28',
        bytes: 859_940,
      },
    ],
  },
  tatqa: {
    repository: 'NExTplusplus/TAT-QA',
    commit: '870accc',
    licence: 'MIT',
    files: [
      {
        upstream: 'dataset_raw/tatqa_dataset_dev.json',
        target: 'tatqa/dev.json',
        sha256: '8da095a819af6db3c14877c6df2d4d29960e41d1a63dd1fa853507bd2a616af5',
        bytes: 1_637_431,
      },
      {
        upstream: 'LICENSE',
        target: 'tatqa/LICENSE',
        sha256: '46e27ffbc49c3fd44a9595c2213f8a5f4319a81b53238e49ce1eec39e7e25662',
        bytes: 1_068,
      },
    ],
  },
};

/** Where files are downloaded from; a test points it at a local server. */
export const DATA_BASE_URL_ENV = 'PAGEWISE_DATA_BASE_URL';
const DEFAULT_BASE_URL = 'https://raw.githubusercontent.com';
/** A download that sends nothing for this long is abandoned (it resumes on the next run). */
const IDLE_TIMEOUT_MS = 60_000;

/**
 * The most bytes accepted for a file pinned at `bytes`: its size plus 1% (at least 4 KiB) of slack. The
 * checksum rejects any other content anyway; the cap keeps a server that sends without end from filling
 * the disk before it does.
 */
export function sizeCap(bytes: number): number {
  return bytes + Math.max(4096, Math.ceil(bytes / 100));
}

/**
 * The default deadline of a whole `data fetch`, in ms: 30 s plus the pinned bytes at 50 KB/s (tau-retail,
 * 2.3 MB: 76 s). A server that trickles bytes (one every few seconds) resets no idle timer's worth of
 * patience past it; `--deadline` sets another.
 */
export function defaultFetchDeadlineMs(set: DataSet): number {
  const bytes = set.files.reduce((sum, f) => sum + f.bytes, 0);
  return 30_000 + Math.ceil(bytes / 50);
}

export const DATA_HELP = `Usage: pagewise data fetch <${Object.keys(DATA_SETS).join('|')}> [--deadline <seconds>]
       pagewise data list

Downloads the third-party data a benchmark needs from its original repository at a pinned commit, checks
the SHA-256 of every file, and stores it in the user data folder, where the benchmarks find it:
$${DATA_DIR_ENV}, by default pagewise/data in your cache folder. An interrupted download resumes.

Limits: a file is cut off past its pinned size plus 1% (at least 4 KiB); a server that sends nothing for
${IDLE_TIMEOUT_MS / 1000} s is abandoned; the whole fetch ends after --deadline seconds (default: 30 s plus
the data set's size at 50 KB/s). A download stopped by a limit resumes when the command runs again.
`;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Downloads `url` into `part`, continuing a partial file with a Range request when the server allows it. */
async function download(url: string, part: string, limits: { maxBytes: number; deadline: number }): Promise<void> {
  const have = existsSync(part) ? statSync(part).size : 0;
  const controller = new AbortController();
  let stopped: 'idle' | 'deadline' | undefined;
  const stop = (why: 'idle' | 'deadline') => () => {
    stopped ??= why;
    controller.abort();
  };
  let idle = setTimeout(stop('idle'), IDLE_TIMEOUT_MS);
  const total = setTimeout(stop('deadline'), Math.max(0, limits.deadline - Date.now()));
  let received = have;
  try {
    const response = await fetch(url, {
      headers: have > 0 ? { Range: `bytes=${have}-` } : {},
      signal: controller.signal,
      redirect: 'follow',
    });
    if (response.status === 416) {
      // Range not satisfiable: a partial file may already be whole (the checksum decides); without one
      // the server refused a request that asked for no range, so there is nothing to check.
      await response.body?.cancel();
      if (have > 0) return;
      throw new SystemError(
        'download',
        `${url} answered HTTP 416 (range not satisfiable) to a request without a range.`,
        {
          retryable: true,
        },
      );
    }
    if (!response.ok || !response.body)
      throw new SystemError('download', `${url} answered HTTP ${response.status}.`, {
        retryable: response.status >= 500,
      });
    // 206 continues the partial file; a server that ignores Range sends it whole (200), so start over.
    if (response.status !== 206 && have > 0) {
      rmSync(part);
      received = 0;
    }
    for await (const chunk of response.body) {
      clearTimeout(idle);
      idle = setTimeout(stop('idle'), IDLE_TIMEOUT_MS);
      const bytes = chunk as Uint8Array;
      if (received + bytes.length > limits.maxBytes) {
        controller.abort();
        rmSync(part, { force: true });
        throw new SystemError(
          'download-too-large',
          `${url} sent more than ${limits.maxBytes} bytes, past the pinned size of the file; the partial file was discarded. The upstream file may have changed or the server is misbehaving.`,
        );
      }
      received += bytes.length;
      await appendFile(part, bytes);
    }
  } catch (error) {
    if (error instanceof SystemError) throw error;
    const why =
      stopped === 'deadline'
        ? 'the fetch ran past its deadline (flag --deadline)'
        : stopped === 'idle'
          ? `nothing received for ${IDLE_TIMEOUT_MS / 1000} s`
          : (((error as Error).cause as Error | undefined)?.message ?? (error as Error).message);
    throw new SystemError('download', `Downloading ${url} failed (${why}). Run the same command again to resume.`, {
      retryable: true,
      cause: error,
    });
  } finally {
    clearTimeout(idle);
    clearTimeout(total);
  }
}

/** Fetches one data set into `dir`; files already present with the right hash are kept. Returns the files written. */
export async function fetchDataSet(
  name: string,
  dir: string,
  options: {
    baseUrl?: string;
    log?: (s: string) => void;
    sets?: Readonly<Record<string, DataSet>>;
    /** The deadline of the whole fetch, in ms. Default {@link defaultFetchDeadlineMs}. */
    timeoutMs?: number;
  } = {},
): Promise<string[]> {
  const sets = options.sets ?? DATA_SETS;
  const set = sets[name];
  if (!set)
    throw new ConfigurationError(
      'bad-arguments',
      `Unknown data set "${name}".${didYouMean(name, Object.keys(sets))} Known: ${Object.keys(sets).join(', ')}.`,
    );
  const base = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const deadline = Date.now() + (options.timeoutMs ?? defaultFetchDeadlineMs(set));
  const written: string[] = [];
  for (const file of set.files) {
    const target = path.join(dir, file.target);
    mkdirSync(path.dirname(target), { recursive: true });
    if (existsSync(target) && (await sha256Of(target)) === file.sha256) {
      options.log?.(`${file.target}: present, checksum ok`);
      continue;
    }
    const url = `${base}/${set.repository}/${set.commit}/${file.upstream}`;
    const part = `${target}.part`;
    options.log?.(`${file.target}: downloading ${url}`);
    await download(url, part, { maxBytes: sizeCap(file.bytes), deadline });
    const actual = await sha256Of(part);
    if (actual !== file.sha256) {
      rmSync(part, { force: true });
      throw new SystemError(
        'checksum-mismatch',
        `${file.target} from ${url} has SHA-256 ${actual}, expected ${file.sha256}; the file was discarded. The upstream file may have changed or the download was tampered with.`,
      );
    }
    renameSync(part, target);
    written.push(target);
  }
  return written;
}

/** Runs `pagewise data`. */
export async function dataCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  const { values, positionals } = parseCommand('data', argv, {
    help: { type: 'boolean', short: 'h' },
    deadline: { type: 'string' },
  });
  const [sub, name] = positionals;
  if (values.help || !sub) {
    out(DATA_HELP);
    return values.help ? 0 : 1;
  }
  const dir = userDataDir();
  if (sub === 'list') {
    for (const [key, set] of Object.entries(DATA_SETS)) {
      const present = set.files.every((f) => existsSync(path.join(dir, f.target)));
      out(`${key.padEnd(12)} ${set.repository}@${set.commit} (${set.licence}) ${present ? 'fetched' : 'not fetched'}`);
    }
    out(`data folder: ${dir}`);
    return 0;
  }
  if (sub !== 'fetch') {
    err(`Unknown subcommand "${sub}".${didYouMean(sub, ['fetch', 'list'])}\n\n${DATA_HELP}`);
    return 1;
  }
  if (!name) {
    err(DATA_HELP);
    return 1;
  }
  const baseUrl = process.env[DATA_BASE_URL_ENV];
  const timeout = values.deadline === undefined ? undefined : intOption('deadline', values.deadline, 0, 1) * 1000;
  await fetchDataSet(name, dir, {
    ...(baseUrl ? { baseUrl } : {}),
    ...(timeout === undefined ? {} : { timeoutMs: timeout }),
    log: err,
  });
  out(`${name}: every file is in ${dir} with its expected SHA-256.`);
  return 0;
}
