import { describe, expect, it } from 'vitest';
import { ParamsError } from '../../src/keys/params.ts';
import { DEFAULT_LIMITS, resolveLimits } from '../../src/node/config.ts';

describe('search limits', () => {
  it('takes positive integers and refuses the rest, naming the limit', () => {
    expect(resolveLimits({ concurrency: 2, queryReplicas: 3 })).toMatchObject({
      concurrency: 2,
      queryReplicas: 3,
    });
    expect(resolveLimits().concurrency).toBe(DEFAULT_LIMITS.concurrency);
    for (const bad of [{ concurrency: 0 }, { queryReplicas: 1.5 }, { queryReplicas: -1 }])
      expect(() => resolveLimits(bad)).toThrow(ParamsError);
    expect(() => resolveLimits({ concurrency: 0 })).toThrow(/limits.concurrency/);
  });
});
