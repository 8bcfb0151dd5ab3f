/**
 * Samples one phase of a bench with node:inspector: the CPU (the same sampler as
 * `node --cpu-prof`; a .cpuprofile that Chrome DevTools or `node bench/cpu-profile.ts` reads),
 * or every allocation (V8's sampling heap profiler, objects collected since counted too; a
 * .heapprofile that DevTools or `node bench/alloc-profile.ts` reads).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

export async function profiled(out: string, run: () => Promise<void>): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(out, JSON.stringify(profile));
    session.disconnect();
    process.stderr.write(`CPU profile: ${out}\n`);
  }
}

/** One sample per this many bytes allocated, on average (V8's default is 32 KiB). */
const ALLOCATION_SAMPLING_BYTES = 64 * 1024;

/**
 * Where a phase allocates: garbage, not what stays live, is what a collector pays for, so the
 * objects minor and major GCs collected during the phase are kept in the profile.
 */
export async function allocationsSampled(out: string, run: () => Promise<void>): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: ALLOCATION_SAMPLING_BYTES,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  try {
    await run();
  } finally {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    writeFileSync(out, JSON.stringify(profile));
    session.disconnect();
    process.stderr.write(`allocation profile: ${out}\n`);
  }
}
