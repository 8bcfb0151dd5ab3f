/**
 * Samples the CPU while one phase of a bench runs (node:inspector's profiler, the same
 * sampler as `node --cpu-prof`) and writes a .cpuprofile that Chrome DevTools or
 * `node bench/cpu-profile.ts` reads.
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
