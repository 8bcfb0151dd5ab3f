/**
 * Names and addresses of what a run creates. Every namespace, root-namespace link and temporary
 * directory starts with the run's prefix `cidx-<pid>-<n>`, so concurrent runs never collide and
 * leftovers of a run that died tell whose they were (its pid is gone).
 */
import { readFileSync } from 'node:fs';

/** `cidx-<pid>-<n>[-…]`: the owner's pid and its run number. */
const PREFIX = /^cidx-(\d+)-(\d+)(?:-|$)/;

/** Linux's IFNAMSIZ less the terminating NUL. */
export const MAX_LINK_NAME = 15;

const held = new Set<number>();

/**
 * A fresh run prefix of this process: the smallest run number it does not hold, so the
 * prefix also fits a link name (`cidx-` + 7-digit pid + `-` + 2 digits = 15 characters).
 */
export function takeRunPrefix(): { prefix: string; release: () => void } {
  let n = 1;
  while (held.has(n)) n++;
  held.add(n);
  return { prefix: `cidx-${process.pid}-${n}`, release: () => held.delete(n) };
}

/** The pid that owns a name made with a run prefix, or undefined for any other name. */
export function ownerPid(name: string): number | undefined {
  const m = PREFIX.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** Whether a process with this pid runs (a zombie does not: it has exited, unreaped). */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

/**
 * The test network's addresses: 198.18.0.0/15, set aside for network benchmarks (RFC 2544),
 * so it is unlikely to be a real network of the machine. A run takes one /20 slot of it
 * (4093 hosts); 32 slots let concurrent runs each have their own.
 */
const RANGE_BASE = ipToInt('198.18.0.0');
const SLOT_BITS = 20;
export const SLOT_COUNT = 1 << (SLOT_BITS - 15);
const SLOT_SIZE = 1 << (32 - SLOT_BITS);

export function ipToInt(ip: string): number {
  const parts = ip.split('.');
  if (parts.length !== 4) throw new Error(`not an IPv4 address: ${ip}`);
  let v = 0;
  for (const p of parts) {
    const n = Number(p);
    if (!/^\d{1,3}$/.test(p) || n > 255) throw new Error(`not an IPv4 address: ${ip}`);
    v = v * 256 + n;
  }
  return v;
}

export function intToIp(v: number): string {
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
}

/** A CIDR block as an inclusive integer range. */
export function cidrRange(cidr: string): [number, number] {
  const [ip, len = '32'] = cidr.split('/');
  const bits = Number(len);
  if (!Number.isInteger(bits) || bits < 0 || bits > 32) throw new Error(`not a CIDR: ${cidr}`);
  const size = 2 ** (32 - bits);
  const start = Math.floor(ipToInt(ip as string) / size) * size;
  return [start, start + size - 1];
}

export interface Subnet {
  /** e.g. 198.18.16.0/20 */
  cidr: string;
  prefixLength: number;
  /** The first address (the network address). */
  base: number;
  /** How many host addresses there are after the control address. */
  hostCapacity: number;
}

export function slotSubnet(slot: number): Subnet {
  if (!Number.isInteger(slot) || slot < 0 || slot >= SLOT_COUNT)
    throw new Error(`subnet slot must be 0…${SLOT_COUNT - 1}, got ${slot}`);
  const base = RANGE_BASE + slot * SLOT_SIZE;
  return {
    cidr: `${intToIp(base)}/${SLOT_BITS}`,
    prefixLength: SLOT_BITS,
    base,
    hostCapacity: SLOT_SIZE - 3, // less network, control (.1) and broadcast addresses
  };
}

/** The control leg's address: the subnet's first host address. */
export function controlAddress(s: Subnet): string {
  return intToIp(s.base + 1);
}

/** Host i's address: after the control address. */
export function hostAddress(s: Subnet, i: number): string {
  if (i < 0 || i >= s.hostCapacity)
    throw new Error(`at most ${s.hostCapacity} hosts fit in ${s.cidr}`);
  return intToIp(s.base + 2 + i);
}

/** Slots whose range overlaps none of the given CIDR blocks, starting at `start` and wrapping. */
export function freeSlots(taken: readonly string[], start: number): number[] {
  const ranges = taken.map(cidrRange);
  const out: number[] = [];
  for (let k = 0; k < SLOT_COUNT; k++) {
    const slot = (start + k) % SLOT_COUNT;
    const lo = RANGE_BASE + slot * SLOT_SIZE;
    const hi = lo + SLOT_SIZE - 1;
    if (!ranges.some(([a, b]) => a <= hi && lo <= b)) out.push(slot);
  }
  return out;
}
