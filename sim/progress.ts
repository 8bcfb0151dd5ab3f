/**
 * Progress of a long command on stderr: a bar on a terminal; on a log (nohup, CI) a line when
 * it starts, one per tenth of the work with the memory so far, and one when it ends.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  increment(): void;
  stop(): void;
}

const SILENT: Progress = { increment() {}, stop() {} };

export function progress(
  enabled: boolean,
  startedAt: number,
  text: string,
  total: number,
): Progress {
  if (!enabled) return SILENT;
  if (!process.stderr.isTTY) return logLines(startedAt, text, total);
  const bar = new cliProgress.SingleBar(
    {
      format: `${text.slice(0, 40).padEnd(40)} [{bar}] {value}/{total} {eta_formatted}`,
      stream: process.stderr,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return { increment: () => bar.increment(), stop: () => bar.stop() };
}

function logLines(startedAt: number, text: string, total: number): Progress {
  const t = Date.now();
  const stamp = () => `[${((Date.now() - startedAt) / 1000).toFixed(1)}s]`;
  process.stderr.write(`${stamp()} ${text} …\n`);
  const step = total >= 20 ? Math.ceil(total / 10) : 0;
  let done = 0;
  return {
    increment: () => {
      done++;
      if (step > 0 && done % step === 0 && done < total) {
        const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
        process.stderr.write(`${stamp()}   ${done}/${total}, RSS ${rss} MiB\n`);
      }
    },
    stop: () =>
      process.stderr.write(`${stamp()} ${text} done in ${((Date.now() - t) / 1000).toFixed(1)}s\n`),
  };
}
