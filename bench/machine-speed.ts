/**
 * How fast this machine is running right now, for benches that compare the CPU of two child
 * processes run minutes apart: the same fixed work, timed on the main thread's CPU clock.
 *
 * On this virtual machine two children of one command have differed by 16 % at everything,
 * the parts of the code they share included; a child that times this work before and after
 * its measured phase says whether the machine, not the code, moved between them. The work
 * allocates nothing while timed (a typed array made once, small enough for the caches), so
 * the size of the heap around it, which is the simulator's own cost, does not reach it.
 */

/** Milliseconds of main-thread CPU for one round of the fixed work: the median of `rounds`. */
export function machineSpeedMs(rounds = 7): number {
  const words = new Uint32Array(1 << 15);
  const times: number[] = [];
  let check = 0;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.threadCpuUsage();
    for (let pass = 0; pass < 24; pass++) {
      // xorshift32: integer work the JIT keeps in registers, then a native sort of the result.
      let x = 2463534242 + pass;
      for (let i = 0; i < words.length; i++) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        words[i] = x >>> 0;
      }
      words.sort();
      check = (check + (words[pass] as number)) >>> 0;
    }
    const t = process.threadCpuUsage(t0);
    times.push((t.user + t.system) / 1000);
  }
  // The checksum is used so the work cannot be dropped as dead code.
  if (check === 0.5) throw new Error('unreachable');
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}
