/**
 * `network latency=<d> [jitter=<d>] [bandwidth=<rate>]` or `network regions=world|<file.json>
 * [access=<d>] [bandwidth=<rate>]`: what the nodes' connections cross (sim/network/). Before
 * the first join. A region file (path relative to the scenario) is read and checked while the
 * line is parsed, so a mistake in it is an error at this line before anything runs.
 */
import { dirname, resolve } from 'node:path';
import type { StatementSpec } from '../language.ts';
import { loadRegionsSync, RegionsError } from '../network/regions.ts';
import { parseRate, UnitError } from '../network/units.ts';
import type { NetworkSpec } from '../swarm-api.ts';

type NetworkStatement = { kind: 'network'; spec: NetworkSpec };

export const network: StatementSpec<NetworkStatement> = {
  word: 'network',
  needs: 'network-model',
  parse(p): NetworkStatement {
    const kv = p.options({
      latency: 'duration',
      jitter: 'duration',
      regions: 'string',
      access: 'duration',
      bandwidth: 'string',
    });
    const spec: NetworkSpec = {};
    if (kv.bandwidth !== undefined) {
      try {
        spec.bandwidthBps = parseRate(kv.bandwidth, 'bandwidth=');
      } catch (err) {
        if (err instanceof UnitError) p.fail(err.message);
        throw err;
      }
    }
    if (kv.regions !== undefined) {
      if (kv.latency !== undefined || kv.jitter !== undefined)
        p.fail('network regions= sets the delays: latency= and jitter= go without it');
      const path = kv.regions === 'world' ? 'world' : resolve(dirname(p.file), kv.regions);
      try {
        spec.regions = { name: kv.regions, table: loadRegionsSync(path) };
      } catch (err) {
        if (err instanceof RegionsError) p.fail(`regions=${kv.regions}: ${err.message}`);
        throw err;
      }
      if (kv.access !== undefined) spec.accessMs = kv.access;
      return { kind: 'network', spec };
    }
    if (kv.latency === undefined) p.fail('network needs latency=<d> or regions=world|<file.json>');
    if (kv.access !== undefined) p.fail('access= goes with regions= (latency= is the whole delay)');
    spec.latencyMs = kv.latency;
    if (kv.jitter !== undefined) spec.jitterMs = kv.jitter;
    return { kind: 'network', spec };
  },
  async run(s, run) {
    run.configureNetwork(s.spec);
  },
};
