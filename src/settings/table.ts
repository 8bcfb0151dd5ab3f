/**
 * Every setting of a cidx node, declared once: name (its place in this tree is its key in the
 * config file), kind and range, default, help, --help category, flag — and, when a scenario may
 * set it, the scenario statement and key. The declarations live by group (node.ts, swarm.ts,
 * timing.ts, limits.ts, dht.ts); this tree puts them together. From it derive the `cidx node`
 * flags, the CIDX_* environment variables, the config-file schema, `--help` and
 * `--print-config` (src/cli/settings-cli.ts, src/cli/node-config.ts), the scenario keys of
 * `index`, `params` and `timing` (sim/), and the library's defaults and checks
 * (`resolveTiming`, `resolveLimits` in src/node/config.ts, `resolveSwarm` in src/index/swarm.ts).
 *
 * Adding a setting (CONTRIBUTING.md has the long version):
 *  1. Declare it in its group's file with the builder of its kind (int, duration, bool, text,
 *     choice, list); flag and help are required, the environment variable follows from the flag
 *     (CIDX_MY_LIMIT). Give it `scenario: { statement, key }` if scenarios may set it.
 *  2. Under timing, limits or dht it reaches the node at once (NodeOptions.timing, … are typed
 *     from here). A new group also needs its line in `nodeOptionsFrom` (src/node/config.ts) and
 *     here; a setting only the process uses (like `rpc`) is read by src/cli/node-run.ts.
 *  3. A rule across settings (one must exceed another) goes beside TIMING_RULES.
 *  4. test/settings.test.ts checks every setting from this tree; nothing to add there unless
 *     the kind is new.
 * Layer: plain data over constants of src/keys; every layer above may import it.
 */
import { ACCESS } from './access.ts';
import { DHT } from './dht.ts';
import { LIMITS } from './limits.ts';
import { NODE } from './node.ts';
import { REACH } from './reach.ts';
import { SWARM } from './swarm.ts';
import { TIMING } from './timing.ts';
import type { ConfigOf } from './tree.ts';

export { MIN_TOKEN_LENGTH } from './access.ts';
export { REACHABILITY_MODES } from './reach.ts';
export { MAX_K, MAX_REPLICAS } from './swarm.ts';
export { MAX_DURATION_MS, TIMING_RULES, type Timing } from './timing.ts';

export const SETTINGS = {
  ...NODE,
  ...ACCESS,
  ...SWARM,
  ...REACH,
  timing: TIMING,
  limits: LIMITS,
  dht: DHT,
} as const;

/** Every setting's value: the resolved configuration of a node (and the config file's shape). */
export type NodeSettings = ConfigOf<typeof SETTINGS>;
export type Limits = NodeSettings['limits'];
export type RelaySettings = NodeSettings['relay'];
