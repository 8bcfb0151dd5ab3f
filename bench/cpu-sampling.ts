/**
 * Samples one phase of a bench with node:inspector: the CPU (the same sampler as
 * `node --cpu-prof`; a .cpuprofile that Chrome DevTools or `node bench/cpu-profile.ts` reads),
 * or every allocation (V8's sampling heap profiler, objects collected since counted too; a
 * .heapprofile that DevTools or `node bench/cpu-profile.ts` reads), or only the allocations
 * that outlived a scavenge.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/** Runs `run` between the session's start and stop of a sampler, and writes what stop returns. */
async function sampled(
  out: string,
  what: string,
  start: (session: Session) => Promise<unknown>,
  stop: (session: Session) => Promise<unknown>,
  run: () => Promise<void>,
): Promise<void> {
  const session = new Session();
  session.connect();
  await start(session);
  try {
    await run();
  } finally {
    writeFileSync(out, JSON.stringify(await stop(session)));
    session.disconnect();
    process.stderr.write(`${what}: ${out}\n`);
  }
}

export function profiled(out: string, run: () => Promise<void>): Promise<void> {
  return sampled(
    out,
    'CPU profile',
    async (session) => {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    },
    async (session) => (await session.post('Profiler.stop')).profile,
    run,
  );
}

/** One sample per this many bytes allocated, on average (V8's default is 32 KiB). */
const ALLOCATION_SAMPLING_BYTES = 64 * 1024;

/**
 * Where a phase allocates: garbage, not what stays live, is what a collector pays for, so the
 * objects minor and major GCs collected during the phase are kept in the profile. With
 * `survivors`, only what outlived a scavenge (or was still live when sampling stopped) is
 * kept: what the scavenger copied, and so what its pauses grow with.
 */
export function allocationsSampled(
  out: string,
  run: () => Promise<void>,
  survivors = false,
): Promise<void> {
  return sampled(
    out,
    survivors ? 'survivor profile' : 'allocation profile',
    async (session) => {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: ALLOCATION_SAMPLING_BYTES,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !survivors,
      });
    },
    async (session) => (await session.post('HeapProfiler.stopSampling')).profile,
    run,
  );
}
