/**
 * Removes what an interrupted run left behind (`cidx sim --cleanup`): namespaces, links of
 * this namespace and temporary directories named `cidx-<pid>-<n>…` whose owner pid no longer
 * runs, and every process still inside such a namespace or using such a directory. nftables
 * rules need no search of their own: the harness loads them only inside its namespaces, so
 * they go with them.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownerPid, pidAlive } from './names.ts';
import { deleteBatch, killAllIn, listLinks, listNamespaces } from './namespaces.ts';
import { requireNetns, runTool } from './tools.ts';

export interface LeftoverOptions {
  /** Also remove what belongs to runs that are still alive (default: only dead owners'). */
  all?: boolean;
  /** Where temporary directories are looked for (default: os.tmpdir()). */
  tmpDir?: string;
}

export interface LeftoverReport {
  namespaces: string[];
  links: string[];
  tempDirs: string[];
  /** Processes killed (inside leftover namespaces or using leftover directories). */
  processes: number;
}

function stale(name: string, all: boolean): boolean {
  const pid = ownerPid(name);
  return pid !== undefined && (all || !pidAlive(pid));
}

/** Processes whose command line names a path under one of these directories (Linux /proc). */
function pidsUsing(dirs: readonly string[]): number[] {
  if (dirs.length === 0 || process.platform !== 'linux') return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.some((a) => dirs.some((d) => a === d || a.startsWith(`${d}/`))))
        pids.push(Number(entry));
    } catch {} // gone meanwhile
  }
  return pids;
}

/** Finds and removes leftovers; returns what it removed. */
export async function cleanupLeftovers(opts: LeftoverOptions = {}): Promise<LeftoverReport> {
  const all = opts.all ?? false;
  const base = opts.tmpDir ?? tmpdir();
  const report: LeftoverReport = { namespaces: [], links: [], tempDirs: [], processes: 0 };

  let dirs: string[] = [];
  try {
    dirs = readdirSync(base)
      .filter((n) => stale(n, all))
      .map((n) => join(base, n));
  } catch {}
  for (const pid of pidsUsing(dirs))
    try {
      process.kill(pid, 'SIGKILL');
      report.processes++;
    } catch {}
  for (const d of dirs) {
    rmSync(d, { recursive: true, force: true, maxRetries: 3 });
    report.tempDirs.push(d);
  }

  const namespaces = listNamespaces('cidx-').filter((n) => stale(n, all));
  const links = listLinks('cidx-').filter((n) => stale(n, all));
  if (namespaces.length === 0 && links.length === 0) return report;
  const tools = requireNetns();
  report.processes += killAllIn(namespaces);
  // Links first: deleting a veth's end here removes the pair at once (NetnsNetwork.destroy).
  // Failures are checked below, by what is left.
  for (const link of links) await runTool(tools.ip, ['link', 'del', link]).catch(() => {});
  if (namespaces.length > 0)
    await runTool(tools.ip, ['-force', '-batch', '-'], { input: deleteBatch(namespaces) }).catch(
      () => {}, // checked below
    );
  const leftNs = new Set(listNamespaces('cidx-'));
  const leftLinks = new Set(listLinks('cidx-'));
  report.namespaces = namespaces.filter((n) => !leftNs.has(n));
  report.links = links.filter((l) => !leftLinks.has(l));
  const left = [
    ...namespaces.filter((n) => leftNs.has(n)),
    ...links.filter((l) => leftLinks.has(l)),
  ];
  if (left.length > 0) throw new Error(`could not remove: ${left.join(', ')}`);
  return report;
}
