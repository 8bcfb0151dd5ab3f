import { describe, expect, it } from 'vitest';
import { ParamsError } from '../../src/keys/params.ts';
import { DEFAULT_LIMITS, resolveLimits } from '../../src/node/config.ts';

describe('search limits', () => {
  it('brief answers and the seen filter are on by default', () => {
    expect(DEFAULT_LIMITS.briefReplies).toBe(1);
    expect(DEFAULT_LIMITS.seenFilterBytes).toBe(8192);
  });

  it('takes 0 to turn either off, and refuses what is not a choice', () => {
    expect(resolveLimits({ briefReplies: 0, seenFilterBytes: 0 })).toMatchObject({
      briefReplies: 0,
      seenFilterBytes: 0,
    });
    for (const bad of [
      { briefReplies: 2 },
      { seenFilterBytes: 8193 },
      { seenFilterBytes: -1 },
      { seenFilterBytes: 1.5 },
    ])
      expect(() => resolveLimits(bad)).toThrow(ParamsError);
    expect(() => resolveLimits({ concurrency: 0 })).toThrow(/limits.concurrency/);
  });

  it("responders are asked for the search's k and connections are reused, unless told", () => {
    expect(DEFAULT_LIMITS.responderK).toBe(0);
    expect(DEFAULT_LIMITS.reuseConnections).toBe(1);
    expect(DEFAULT_LIMITS.queryFloat32).toBe(0);
    expect(resolveLimits({ responderK: 1000, reuseConnections: 0 })).toMatchObject({
      responderK: 1000,
      reuseConnections: 0,
    });
    for (const bad of [
      { responderK: -1 },
      { responderK: 1001 },
      { responderK: 2.5 },
      { reuseConnections: 2 },
      { queryFloat32: -1 },
    ])
      expect(() => resolveLimits(bad)).toThrow(ParamsError);
  });
});
