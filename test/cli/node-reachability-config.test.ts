import { describe, expect, it } from 'vitest';
import { ConfigError, nodeOptions, resolveConfig } from '../../src/cli/node-config.ts';
import { DEFAULT_RELAY } from '../../src/net/relay.ts';

describe('cidx node: reachability settings', () => {
  it('default to auto, with the relay defaults and the private-range rule', () => {
    const o = nodeOptions(resolveConfig());
    expect(o.reachability).toBe('auto');
    expect(o.relay).toEqual(DEFAULT_RELAY);
    expect(o.privateSwarm).toBeUndefined(); // unset: the host applies the private-range rule
  });

  it('pass a config file’s relay bounds and private-range choice to the node', () => {
    const o = nodeOptions(
      resolveConfig({
        reachability: 'public',
        relay: { maxReservations: 100, dataLimitBytes: DEFAULT_RELAY.dataLimitBytes * 2 },
        privateSwarm: false,
      }),
    );
    expect(o).toMatchObject({
      reachability: 'public',
      relay: { maxReservations: 100, dataLimitBytes: DEFAULT_RELAY.dataLimitBytes * 2 },
      privateSwarm: false,
    });
  });

  it('refuse what is out of range, naming the setting', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ reachability: 'sometimes' }, /^reachability: /],
      [{ relay: { reservations: 9 } }, /^relay\.reservations: /],
      [{ relay: { durationLimitMs: 10 } }, /^relay\.durationLimitMs: /],
      [{ relay: { hops: 1 } }, /^relay: unknown setting\(s\) hops/],
      [{ privateSwarm: 'yes' }, /^privateSwarm: /],
      [{ swarmKey: '' }, /^swarmKey: /],
    ];
    for (const [layer, why] of cases) {
      expect(() => resolveConfig(layer)).toThrow(ConfigError);
      expect(() => resolveConfig(layer)).toThrow(why);
    }
  });
});
