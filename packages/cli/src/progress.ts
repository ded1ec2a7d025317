/**
 * Progress of a long command on stderr: a bar on an interactive terminal, a line every tenth of the work otherwise
 * (a log or a pipe gets a few lines, not one per step).
 */
import cliProgress from 'cli-progress';

/** A progress display: told the work done so far, and stopped once the command ends. */
export interface ProgressDisplay {
  /** `done` of `total` `unit`s; `detail` says what happened last. */
  update(done: number, total: number, detail?: string): void;
  /** Removes the bar (a no-op without one). Safe to call more than once. */
  stop(): void;
}

/**
 * A progress display for `label` (`bench report-analysis`, `analyze`) counting `unit`s (`episodes`, `documents
 * read`): a bar with an estimate of the time left when `tty`, else a line through `err` whenever another tenth of
 * the total is done, and at the first update.
 */
export function progressDisplay(label: string, unit: string, err: (s: string) => void, tty: boolean): ProgressDisplay {
  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} |{bar}| {value}/{total} ${unit} | {detail} | eta {eta_formatted}`,
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update: (done, total, detail) => {
        const payload = { detail: detail ?? 'starting' };
        if (!started) {
          bar.start(total, done, payload);
          started = true;
        } else {
          bar.setTotal(total);
          bar.update(done, payload);
        }
      },
      stop: () => {
        if (started) bar.stop();
        started = false;
      },
    };
  }
  let shown = -1;
  return {
    update: (done, total, detail) => {
      const tenth = total === 0 ? 10 : Math.floor((done * 10) / total);
      if (tenth === shown) return;
      shown = tenth;
      err(`${label}: ${done}/${total} ${unit}${detail ? ` (${detail})` : ''}`);
    },
    stop: () => {},
  };
}
