/**
 * `cidx sim --cleanup`: removes what interrupted runs left behind — node processes, network
 * namespaces, the control links and temporary data directories of runs whose process is gone
 * (sim/netns/leftovers.ts) — prints what it removed, and returns the exit code: 0, 2 with a
 * one-line reason when it cannot run here (not Linux, not root, ip or nft missing), 1 when
 * something could not be removed.
 */
import { cleanupLeftovers, NetnsUnavailableError, requireNetns } from './netns/index.ts';

export async function runCleanup(
  write: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Promise<number> {
  try {
    requireNetns();
  } catch (err) {
    if (!(err instanceof NetnsUnavailableError)) throw err;
    process.stderr.write(`cidx: --cleanup: ${err.message.replace(/ or without --netns$/, '')}\n`);
    return 2;
  }
  try {
    const r = await cleanupLeftovers();
    const list = (what: string, names: string[]) => {
      if (names.length > 0) write(`removed ${names.length} ${what}: ${names.join(', ')}`);
    };
    list('network namespace(s)', r.namespaces);
    list('link(s)', r.links);
    list('temporary director(y/ies)', r.tempDirs);
    if (r.processes > 0) write(`killed ${r.processes} process(es)`);
    if (r.namespaces.length + r.links.length + r.tempDirs.length + r.processes === 0)
      write('nothing left behind');
    return 0;
  } catch (err) {
    process.stderr.write(`cidx: --cleanup: ${(err as Error).message}\n`);
    return 1;
  }
}
