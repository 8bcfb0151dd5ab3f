/**
 * Runs a `cidx node` process with resolved settings until SIGINT/SIGTERM. Apart from the
 * command's definition so that `cidx node --help` and `--print-config` load none of libp2p.
 */
import { readFile, stat } from 'node:fs/promises';
import pino from 'pino';
import { MAX_SWARM_KEY_BYTES, parseSwarmKey, SwarmKeyError } from '../net/swarm-key.ts';
import { CidxNode } from '../node/node.ts';
import { NodeStorage, StorageFormatError } from '../node/storage.ts';
import { FieldError } from '../profile/errors.ts';
import { type RpcHandle, startRpc } from '../rpc/http.ts';
import { NodeMetrics } from '../rpc/metrics.ts';
import { NodeCounters } from '../rpc/node-counters.ts';
import { UsageError } from './io.ts';
import { type NodeConfig, nodeOptions, splitHostPort } from './node-config.ts';

/** Runs a node until SIGINT/SIGTERM. */
export async function runNode(config: NodeConfig): Promise<void> {
  const swarmKey = await readSwarmKey(config.swarmKey);
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
        maxAttributes: config.limits.maxAttributes,
      });
    // Per-node series; with --no-metrics no registry exists at all.
    const metrics = config.metrics ? new NodeMetrics() : undefined;
    // Always: `stats` reports them (wire traffic per protocol, lookups, searches).
    const counters = new NodeCounters();
    try {
      node = await CidxNode.create(
        {
          ...nodeOptions(config),
          swarmKey,
          onServed: metrics?.served,
          ...counters.nodeOptions(metrics?.libp2pMetrics()),
        },
        storage,
      );
      metrics?.watch(node);
      counters.watch(node);
    } catch (err) {
      if (err instanceof FieldError) throw new UsageError(`config: ${err.message}`);
      throw err;
    }
    node.on('warning', (w) => log.warn(w));
    node.on('republished', (r) => log.debug({ republished: r }, 'republished'));
    node.on('notification', (n) =>
      log.info({ community: n.record.id, for: n.for, kind: n.kind }, 'notification'),
    );
    // What changes how peers reach this node.
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
    // The port answers from the start: /healthz says 503 until the node has joined.
    const { host, port } = splitHostPort(config.rpc);
    rpc = await startRpc(node, {
      host,
      port,
      maxBodyBytes: config.rpcMaxBodyBytes,
      starting: true,
      vhosts: config.rpcVhosts,
      token: config.rpcToken,
      metrics,
      counters,
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
    // A data directory of a newer cidx: the wrong program for it, not bad data.
    if (err instanceof StorageFormatError) throw new UsageError(`--data ${err.message}`, 2);
    throw new UsageError(`node: ${(err as Error).message}`, 1);
  }
}

/** The swarm key file: small, strictly formatted; a one-line error (exit 2) otherwise. */
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
