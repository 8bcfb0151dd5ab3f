import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heapLimitFlagKnown } from '../../sim/heap-limit.ts';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'buffer-churn.ts');

/** Full collections while a process holding a heap churns through buffers (one child each). */
function fullCollections(mode: 'v8' | 'scaled' | 'restored'): number {
  const out = execFileSync(process.execPath, [FIXTURE, mode], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return (JSON.parse(out) as { full: number }).full;
}

describe('buffers in the heap limit (sim/heap-limit.ts)', () => {
  it('knows the flag on the V8 the project runs on', () => {
    // The project pins Node 24 (V8 13): there the flag exists and is off by default.
    expect(heapLimitFlagKnown(), `V8 ${process.versions.v8}`).toBe(true);
    expect(heapLimitFlagKnown('13.6.233.17-node.53')).toBe(true);
    expect(heapLimitFlagKnown('12.4.254.21-node.33')).toBe(false);
    expect(heapLimitFlagKnown('14.1.146.11-node.14')).toBe(false);
  });

  it('marks a large heap far less often while buffers come and go, and puts the rule back', () => {
    const v8 = fullCollections('v8');
    const scaled = fullCollections('scaled');
    const restored = fullCollections('restored');
    // V8's rule: a full collection for every 64 MiB of buffers, ~20 over 1.25 GiB.
    expect(v8).toBeGreaterThanOrEqual(8);
    expect(scaled).toBeLessThanOrEqual(Math.floor(v8 / 4));
    expect(restored).toBeGreaterThanOrEqual(8);
  }, 120_000);
});
