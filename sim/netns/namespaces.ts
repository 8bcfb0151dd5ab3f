/**
 * Namespace bookkeeping without spawning a tool per namespace: which named namespaces exist
 * (the bind mounts `ip netns add` makes) and which processes run inside them (their
 * /proc/<pid>/ns/net inode equals the mount's). Synchronous, so the `exit` path can use it.
 */
import { existsSync, readdirSync, readlinkSync, statSync } from 'node:fs';

/** Where iproute2 mounts named namespaces (NETNS_RUN_DIR). */
export const NETNS_DIR = '/var/run/netns';

/** Named namespaces whose name starts with `prefix`. */
export function listNamespaces(prefix = ''): string[] {
  try {
    return readdirSync(NETNS_DIR).filter((n) => n.startsWith(prefix));
  } catch {
    return [];
  }
}

function namespaceInode(name: string): number | undefined {
  try {
    return statSync(`${NETNS_DIR}/${name}`).ino;
  } catch {
    return undefined;
  }
}

/** The pids of processes living in any of these namespaces. */
function pidsIn(names: readonly string[]): number[] {
  const inodes = new Set<string>();
  for (const n of names) {
    const ino = namespaceInode(n);
    if (ino !== undefined) inodes.add(`net:[${ino}]`);
  }
  if (inodes.size === 0) return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (inodes.has(readlinkSync(`/proc/${entry}/ns/net`))) pids.push(Number(entry));
    } catch {} // gone meanwhile, or a kernel thread
  }
  return pids;
}

/** SIGKILLs every process in these namespaces; returns how many were signalled. */
export function killAllIn(names: readonly string[]): number {
  let n = 0;
  for (const pid of pidsIn(names)) {
    try {
      process.kill(pid, 'SIGKILL');
      n++;
    } catch {}
  }
  return n;
}

/** `ip -batch` input that deletes these namespaces. */
export function deleteBatch(names: readonly string[]): string {
  return names.map((n) => `netns del ${n}\n`).join('');
}

/** Whether this process's namespace has a link of this name. */
export function linkExists(name: string): boolean {
  return existsSync(`/sys/class/net/${name}`);
}

/** Links of this process's namespace whose name starts with `prefix`. */
export function listLinks(prefix: string): string[] {
  try {
    return readdirSync('/sys/class/net').filter((n) => n.startsWith(prefix));
  } catch {
    return [];
  }
}
