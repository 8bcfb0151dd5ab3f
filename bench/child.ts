/**
 * Runs one measurement in a fresh Node process (so each one's memory is its own) and returns
 * the JSON object it printed last on stdout; its stderr passes through. The child sees
 * BENCH_CHILD=1, and leaves to its parent what the parent prints.
 */
import { spawnSync } from 'node:child_process';

export function runChild<T>(script: string, args: string[], nodeArgs: string[] = []): T {
  const r = spawnSync(process.execPath, [...nodeArgs, script, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_CHILD: '1' },
  });
  if (r.status !== 0) {
    throw new Error(`${script} ${args.join(' ')} failed (${r.signal ?? `status ${r.status}`})`);
  }
  return JSON.parse(r.stdout.trim().split('\n').at(-1) as string) as T;
}
