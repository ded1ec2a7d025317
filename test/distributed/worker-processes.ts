/**
 * Worker processes for the distributed tests: start `worker-process.ts` children, watch their output,
 * and kill every one of them at the end whatever happened. Each worker leads its own process group, so
 * the sandbox processes it starts for episodes are killed with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

/** A started worker process. */
export interface WorkerProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Resolves with the first output line matching `pattern`; rejects after `timeoutMs` or if it exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (or signal name) once it has exited. */
  exited: Promise<number | string>;
}

/** Worker processes started by one test file; {@link killAll} ends them. */
export class WorkerProcesses {
  private readonly started: WorkerProcess[] = [];

  /** Starts a worker with `args` after `--redis <url>` and waits until it takes episodes. */
  async start(name: string, url: string, args: string[]): Promise<WorkerProcess> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'worker-process.ts'), '--redis', url, ...args],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    let text = '';
    const listeners = new Set<() => void>();
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      for (const listener of listeners) listener();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    const exited = new Promise<number | string>((resolve) =>
      child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
    );
    let gone = false;
    void exited.then(() => {
      gone = true;
      for (const listener of listeners) listener();
    });
    const worker: WorkerProcess = {
      name,
      child,
      output: () => text,
      exited,
      waitFor: (pattern, timeoutMs = 20_000) =>
        new Promise((resolve, reject) => {
          const check = () => {
            const line = text.split('\n').find((l) => pattern.test(l));
            if (line !== undefined) done(() => resolve(line));
            else if (gone) done(() => reject(new Error(`worker ${name} exited before printing ${pattern}:\n${text}`)));
          };
          const timer = setTimeout(
            () =>
              done(() => reject(new Error(`worker ${name} did not print ${pattern} within ${timeoutMs} ms:\n${text}`))),
            timeoutMs,
          );
          const done = (settle: () => void) => {
            clearTimeout(timer);
            listeners.delete(check);
            settle();
          };
          listeners.add(check);
          check();
        }),
    };
    this.started.push(worker);
    await worker.waitFor(/taking episodes from/);
    return worker;
  }

  /** Kills every worker and its sandbox processes (SIGKILL to the process group) and waits for the workers to exit. */
  async killAll(): Promise<void> {
    const running = this.started.splice(0);
    for (const worker of running) {
      try {
        if (worker.child.pid !== undefined) process.kill(-worker.child.pid, 'SIGKILL');
      } catch {
        // The group is empty: everything in it has exited.
      }
    }
    await Promise.all(running.map((w) => w.exited));
  }
}

/** True while any process of the group that `pid` leads is alive. */
export function groupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
