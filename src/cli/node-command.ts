import { readFile, stat } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import pino from 'pino';
import { FAMILIES } from '../keys/params.ts';
import { REACHABILITY_MODES } from '../net/reachability.ts';
import { MAX_SWARM_KEY_BYTES, parseSwarmKey, SwarmKeyError } from '../net/swarm-key.ts';
import { CidxNode } from '../node/node.ts';
import { NodeStorage } from '../node/storage.ts';
import { FieldError } from '../profile/errors.ts';
import { type RpcHandle, startRpc } from '../rpc/http.ts';
import { NodeMetrics } from '../rpc/metrics.ts';
import { UsageError } from './io.ts';
import {
  ConfigError,
  checkRpcAccess,
  LOG_LEVELS,
  type NodeConfig,
  nodeOptions,
  resolveConfig,
  splitHostPort,
} from './node-config.ts';
import { intIn, numberFrom, oneOf, onOff } from './options.ts';

interface NodeFlags {
  listen?: string[];
  bootstrap?: string[];
  rpc?: string;
  data?: string;
  index?: 'attribute' | 'lsh';
  lshN?: number;
  lshM?: number;
  lshSeed?: string;
  lshFamily?: string;
  lshBits?: number;
  replicas?: number;
  k?: number;
  l?: number;
  s?: number;
  republishInterval?: number;
  recordTtl?: number;
  logLevel?: string;
  config?: string;
  rpcToken?: string;
  rpcVhosts?: string[];
  metrics?: boolean;
  // ── reachability flags ──
  reachability?: string;
  swarmKey?: string;
}

/** A repeatable flag; from an environment variable, a comma-separated list. */
function list(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== ''),
  ];
}

export function registerNodeCommand(program: Command): void {
  program
    .command('node')
    .description(
      'run a cidx node: join a swarm over TCP, serve JSON-RPC on a local port, keep state on disk',
    )
    .addOption(
      new Option(
        '--listen <multiaddr>',
        'listen address, repeatable (default /ip4/127.0.0.1/tcp/0)',
      )
        .argParser(list)
        .env('CIDX_LISTEN'),
    )
    .addOption(
      new Option(
        '--bootstrap <multiaddr>',
        'a peer of the swarm to join through (…/p2p/<id>), repeatable',
      )
        .argParser(list)
        .env('CIDX_BOOTSTRAP'),
    )
    .addOption(
      new Option(
        '--rpc <host:port>',
        'JSON-RPC address (default 127.0.0.1:7070; port 0 picks one)',
      ).env('CIDX_RPC'),
    )
    .addOption(
      new Option(
        '--data <dir>',
        'keep identity, records and inbox here (default: in memory only)',
      ).env('CIDX_DATA'),
    )
    .addOption(
      new Option('--index <mode>', 'attribute or lsh (default lsh)')
        .argParser(oneOf(['attribute', 'lsh'] as const))
        .env('CIDX_INDEX'),
    )
    .addOption(
      new Option('--lsh-n <n>', 'LSH identifiers per profile (default 20)')
        .argParser(intIn(1, 1024))
        .env('CIDX_LSH_N'),
    )
    .addOption(
      new Option('--lsh-m <m>', 'min-hash functions per identifier (default 1)')
        .argParser(intIn(1, 64))
        .env('CIDX_LSH_M'),
    )
    .addOption(
      new Option('--lsh-seed <seed>', "the swarm's LSH seed (default cidx)").env('CIDX_LSH_SEED'),
    )
    .addOption(
      new Option('--lsh-family <family>', `LSH family: ${FAMILIES.join(', ')} (default oph)`)
        .argParser(oneOf(FAMILIES))
        .env('CIDX_LSH_FAMILY'),
    )
    .addOption(
      new Option('--lsh-bits <bits>', 'bits per LSH identifier: 8, 16, 32, 64')
        .argParser(intIn(8, 64))
        .env('CIDX_LSH_BITS'),
    )
    .addOption(
      new Option('--replicas <r>', 'peers holding each key (default 3)')
        .argParser(intIn(1, 8))
        .env('CIDX_REPLICAS'),
    )
    .addOption(
      new Option('--k <k>', 'results per queried node (default 5)')
        .argParser(intIn(1, 1000))
        .env('CIDX_K'),
    )
    .addOption(
      new Option('--l <l>', 'similar communities notified (default 3)')
        .argParser(intIn(0, 1000))
        .env('CIDX_L'),
    )
    .addOption(
      new Option('--s <s>', 'similar descriptors a storing node returns (default 5)')
        .argParser(intIn(0, 1000))
        .env('CIDX_S'),
    )
    .addOption(
      new Option(
        '--republish-interval <ms>',
        'how often owned records are stored again (default 1800000)',
      )
        .argParser(numberFrom(1))
        .env('CIDX_REPUBLISH_INTERVAL'),
    )
    .addOption(
      new Option('--record-ttl <ms>', 'lifetime of a record not republished (default 7200000)')
        .argParser(numberFrom(1))
        .env('CIDX_RECORD_TTL'),
    )
    .addOption(
      new Option('--log-level <level>', `stderr log level: ${LOG_LEVELS.join(', ')} (default warn)`)
        .argParser(oneOf(LOG_LEVELS))
        .env('CIDX_LOG_LEVEL'),
    )
    .addOption(
      new Option('--config <file>', 'JSON settings (flags and environment override them)').env(
        'CIDX_CONFIG',
      ),
    )
    // RPC port access and operation
    .addOption(
      new Option(
        '--rpc-token <token>',
        'require Authorization: Bearer <token> on the RPC port (needed when --rpc is not loopback; ≥ 16 characters)',
      ).env('CIDX_RPC_TOKEN'),
    )
    .addOption(
      new Option(
        '--rpc-vhosts <names>',
        'more host names accepted in the Host header, comma-separated (* accepts any)',
      )
        .argParser(list)
        .env('CIDX_RPC_VHOSTS'),
    )
    .addOption(
      new Option('--metrics <on|off>', 'serve Prometheus metrics on GET <rpc>/metrics (default on)')
        .argParser(onOff)
        .env('CIDX_METRICS'),
    )
    // ── reachability, private swarms ──
    .addOption(
      new Option(
        '--reachability <mode>',
        'auto (default: serve once peers confirm we can be dialled, or at once in a swarm on ' +
          'private-range addresses), public (serve, relay for others), private (client, via relays)',
      )
        .argParser(oneOf(REACHABILITY_MODES))
        .env('CIDX_REACHABILITY'),
    )
    .addOption(
      new Option(
        '--swarm-key <file>',
        'pre-shared key of a private swarm (cidx swarm-key): peers without it cannot connect',
      ).env('CIDX_SWARM_KEY'),
    )
    // ── end of reachability flags ──
    .addHelpText(
      'after',
      `
Every flag can also be set by the environment variable named after it (CIDX_LISTEN, CIDX_LSH_N, …;
lists comma-separated). Precedence: flags > environment > --config file > defaults.

When ready, prints one JSON line on stdout:
  {"event":"ready","peerId":"12D3…","addrs":["/ip4/…/tcp/…/p2p/12D3…"],"rpc":"http://127.0.0.1:7070"}
JSON-RPC 2.0 on POST <rpc>/, notifications as server-sent events on GET <rpc>/events,
Prometheus metrics on GET <rpc>/metrics, GET <rpc>/healthz (200 serving, 503 starting/stopping),
the web console on GET <rpc>/. A non-loopback --rpc needs --rpc-token; prefer CIDX_RPC_TOKEN
to the flag (other users can read command lines).
SIGINT / SIGTERM stop it gracefully (exit 0).

Reachability: a node others can dial serves both DHTs; one they cannot (behind a NAT) only
queries them and is reached through relays. --reachability auto asks peers to dial it back
(AutoNAT) and serves once they could. AutoNAT cannot test loopback or private-range addresses
(127/8, 10/8, 192.168/16, …): in a swarm whose bootstrap peers all have such addresses (or with
none), auto serves at once. Declare --reachability public for bootstrap and relay servers.

Examples:
  cidx node --data ./node1 --listen /ip4/127.0.0.1/tcp/4001 --rpc 127.0.0.1:7070
  cidx node --data ./node2 --rpc 127.0.0.1:7071 --bootstrap /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW…
  cidx node --index attribute --replicas 5 --config swarm.json
  cidx node --reachability public --listen /ip4/0.0.0.0/tcp/4001 --listen /ip4/0.0.0.0/tcp/4002/ws
  cidx node --swarm-key swarm.key --bootstrap /ip4/…/tcp/4001/p2p/12D3KooW…

  CIDX_RPC_TOKEN=$(openssl rand -hex 24) cidx node --rpc 0.0.0.0:7070 --rpc-vhosts node1.lan`,
    )
    .action(async (flags: NodeFlags) => {
      const config = await loadConfig(flags);
      const swarmKey = await readSwarmKey(config.swarmKey);
      await runNode(config, swarmKey);
    });
}

async function loadConfig(f: NodeFlags): Promise<NodeConfig> {
  let file: Record<string, unknown> = {};
  if (f.config !== undefined) {
    let text: string;
    try {
      text = await readFile(f.config, 'utf8');
    } catch (err) {
      throw new UsageError(
        `--config ${f.config}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    try {
      file = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`--config ${f.config}: not valid JSON (${(err as Error).message})`);
    }
    if (typeof file !== 'object' || file === null || Array.isArray(file))
      throw new UsageError(`--config ${f.config}: must be a JSON object`);
  }
  const fromFlags: Record<string, unknown> = {
    listen: f.listen,
    bootstrap: f.bootstrap,
    rpc: f.rpc,
    data: f.data,
    index: f.index,
    lsh: { n: f.lshN, m: f.lshM, seed: f.lshSeed, family: f.lshFamily, bits: f.lshBits },
    replicas: f.replicas,
    k: f.k,
    l: f.l,
    s: f.s,
    timing: { republishIntervalMs: f.republishInterval, recordTtlMs: f.recordTtl },
    logLevel: f.logLevel,
    rpcToken: f.rpcToken,
    rpcVhosts: f.rpcVhosts,
    metrics: f.metrics,
    reachability: f.reachability,
    swarmKey: f.swarmKey,
  };
  try {
    const c = resolveConfig(file, fromFlags);
    splitHostPort(c.rpc);
    checkRpcAccess(c);
    return c;
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(`config: ${err.message}`);
    throw err;
  }
}

// ── reachability: the swarm key file ──
async function readSwarmKey(path: string | undefined): Promise<Uint8Array | undefined> {
  if (path === undefined) return undefined;
  try {
    if ((await stat(path)).size > MAX_SWARM_KEY_BYTES)
      throw new SwarmKeyError(`larger than ${MAX_SWARM_KEY_BYTES} bytes: not a swarm key`);
    return parseSwarmKey(await readFile(path));
  } catch (err) {
    const why =
      err instanceof SwarmKeyError
        ? err.message
        : `cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
    throw new UsageError(`--swarm-key ${path}: ${why}`);
  }
}

/** Runs a node until SIGINT/SIGTERM. */
async function runNode(config: NodeConfig, swarmKey: Uint8Array | undefined): Promise<void> {
  const log = pino(
    { level: config.logLevel, base: undefined },
    pino.destination({ dest: 2, sync: true }),
  );
  let storage: NodeStorage | undefined;
  let node: CidxNode | undefined;
  let rpc: RpcHandle | undefined;
  try {
    if (config.data === undefined)
      log.warn('no --data: identity, records and inbox live in memory only');
    else
      storage = await NodeStorage.open(config.data, {
        maxAttributes: config.limits.maxAttributes ?? 4096,
      });
    // Per-node series; with --metrics off no registry exists at all.
    const metrics = config.metrics ? new NodeMetrics() : undefined;
    try {
      node = await CidxNode.create(
        {
          ...nodeOptions(config),
          swarmKey,
          ...(metrics ? { metrics: metrics.libp2pMetrics(), onServed: metrics.served } : {}),
        },
        storage,
      );
      metrics?.watch(node);
    } catch (err) {
      if (err instanceof FieldError) throw new UsageError(`config: ${err.message}`);
      throw err;
    }
    node.on('warning', (w) => log.warn(w));
    node.on('republished', (r) => log.debug({ republished: r }, 'republished'));
    node.on('notification', (n) =>
      log.info({ community: n.record.id, for: n.for, kind: n.kind }, 'notification'),
    );
    // ── reachability: what changes how peers reach this node ──
    const reach = node.libp2p.services.reachability;
    reach.addEventListener('change', (e) => log.info(e.detail, 'reachability'));
    reach.addEventListener('relay-addresses', (e) =>
      log.info({ relayAddrs: e.detail }, 'relay addresses'),
    );
    node.on('contacts', (c) =>
      log.info(
        { community: c.id, version: c.version, contacts: c.contacts },
        'contacts republished',
      ),
    );
    // ── end of reachability logs ──
    // The port answers from the start: /healthz says 503 until the node has joined.
    const { host, port } = splitHostPort(config.rpc);
    rpc = await startRpc(node, {
      host,
      port,
      maxBodyBytes: config.rpcMaxBodyBytes,
      starting: true,
      vhosts: config.rpcVhosts,
      ...(config.rpcToken !== undefined ? { token: config.rpcToken } : {}),
      ...(metrics ? { metrics } : {}),
    });
    await node.start();
    rpc.serving();
    // Handlers first: a supervisor may signal as soon as it reads the ready line.
    const signalled = waitForSignal();
    process.stdout.write(
      `${JSON.stringify({ event: 'ready', peerId: node.peerId.toString(), addrs: node.addrs, rpc: rpc.url })}\n`,
    );
    log.info({ rpc: rpc.url, addrs: node.addrs }, 'ready');
    await signalled;
    log.info('stopping');
    // A second signal, or a stop that hangs, ends the process anyway.
    const hard = setTimeout(() => process.exit(1), 20_000);
    hard.unref();
    await rpc.close(10_000);
    await node.stop();
    await storage?.close();
  } catch (err) {
    await rpc?.close(1_000).catch(() => {});
    await node?.stop().catch(() => {});
    await storage?.close().catch(() => {});
    if (err instanceof UsageError) throw err;
    throw new UsageError(`node: ${(err as Error).message}`, 1);
  }
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const on = () => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve();
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
