/**
 * How fast this machine is running right now, for benches that compare the CPU of two child
 * processes run minutes apart: the same fixed work, timed by the wall clock.
 *
 * On this virtual machine two children of one command have differed at everything, the parts
 * of the code they share included (docs/BENCHMARKS.md); a child that times this work before
 * and after its measured phase says whether the machine, not the code, moved between them.
 * Two kinds of work, as a machine can slow down at either: arithmetic on a buffer small enough
 * for the caches, and reads from a buffer far larger than them, each depending on the one
 * before (how long memory takes to answer). Neither allocates while timed, so the size of the
 * heap around them, which is the simulator's own cost, does not reach them.
 */

export interface MachineSpeed {
  /** Milliseconds for the arithmetic (median of the rounds). */
  cpuMs: number;
  /** Milliseconds for the memory reads (median of the rounds). */
  memoryMs: number;
}

const CHAIN_WORDS = 1 << 24; // 64 MiB: past any cache of this machine
let chain: Uint32Array | undefined;

/**
 * Builds the buffer the memory reads walk (64 MiB, and some work, once per process):
 * call it before what is measured, so neither falls in it.
 */
export function prepareMachineSpeed(): void {
  readChain();
}

/** One cycle through every word in a random order (Sattolo), built once per process. */
function readChain(): Uint32Array {
  if (chain) return chain;
  const a = new Uint32Array(CHAIN_WORDS);
  for (let i = 0; i < a.length; i++) a[i] = i;
  let seed = 12345;
  for (let i = a.length - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % i;
    const t = a[i] as number;
    a[i] = a[j] as number;
    a[j] = t;
  }
  chain = a;
  return a;
}

// The wall clock, not the thread's CPU clock: here that clock's readings of one round often
// came in coarse steps, a large part of the round. The work is synchronous, and the median of
// the rounds drops those another thread interrupted.
function msOf(work: () => number): [number, number] {
  const t0 = performance.now();
  const out = work();
  return [performance.now() - t0, out];
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** The fixed work's time, each kind the median of `rounds`. */
export function machineSpeedMs(rounds = 7): MachineSpeed {
  const words = new Uint32Array(1 << 15);
  const links = readChain();
  const cpu: number[] = [];
  const memory: number[] = [];
  let check = 0;
  for (let r = 0; r < rounds; r++) {
    const [c, x] = msOf(() => {
      let sum = 0;
      for (let pass = 0; pass < 24; pass++) {
        // xorshift32: integer work the JIT keeps in registers, then a native sort of the result.
        let v = 2463534242 + pass;
        for (let i = 0; i < words.length; i++) {
          v ^= v << 13;
          v ^= v >>> 17;
          v ^= v << 5;
          words[i] = v >>> 0;
        }
        words.sort();
        sum = (sum + (words[pass] as number)) >>> 0;
      }
      return sum;
    });
    const [m, y] = msOf(() => {
      let p = r;
      for (let k = 0; k < 200_000; k++) p = links[p] as number;
      return p;
    });
    cpu.push(c);
    memory.push(m);
    check = (check + x + y) >>> 0;
  }
  // The checksum is used so the work cannot be dropped as dead code.
  if (check === 0.5) throw new Error('unreachable');
  return { cpuMs: median(cpu), memoryMs: median(memory) };
}
