/**
 * A benchmark's temporary files, removed when its process ends. Node runs 'exit' handlers on a
 * normal end and on process.exit, but not when a signal ends it — a long run cut short with
 * Ctrl-C or `kill` — so SIGINT and SIGTERM are turned into an exit with the shell's code.
 * (bench/modes.ts handles its signals itself: it waits for its `cidx sim` child to stop.)
 */
import { rmSync } from 'node:fs';

let signalsExit = false;

export function removedAtExit(path: string): void {
  process.on('exit', () => rmSync(path, { recursive: true, force: true }));
  if (signalsExit) return;
  signalsExit = true;
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
}
