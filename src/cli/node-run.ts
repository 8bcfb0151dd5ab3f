/**
 * Runs a `cidx node` process with resolved settings until SIGINT/SIGTERM. Apart from the
 * command's definition so that `cidx node --help` and `--print-config` load none of libp2p.
 */
import pino from 'pino';
import { CidxNode } from '../node/node.ts';
import { NodeStorage } from '../node/storage.ts';
import { FieldError } from '../profile/errors.ts';
import { startRpc } from '../rpc/http.ts';
import { UsageError } from './io.ts';
import { type NodeConfig, nodeOptions, splitHostPort } from './node-config.ts';

/** Runs a node until SIGINT/SIGTERM. */
export async function runNode(config: NodeConfig): Promise<void> {
  const log = pino(
    { level: config.logLevel, base: undefined },
    pino.destination({ dest: 2, sync: true }),
  );
  let storage: NodeStorage | undefined;
  let node: CidxNode | undefined;
  try {
    if (config.data === undefined)
      log.warn('no --data: identity, records and inbox live in memory only');
    else
      storage = await NodeStorage.open(config.data, {
        maxAttributes: config.limits.maxAttributes,
      });
    try {
      node = await CidxNode.create(nodeOptions(config), storage);
    } catch (err) {
      if (err instanceof FieldError) throw new UsageError(`config: ${err.message}`);
      throw err;
    }
    node.on('warning', (w) => log.warn(w));
    node.on('republished', (r) => log.debug({ republished: r }, 'republished'));
    node.on('notification', (n) =>
      log.info({ community: n.record.id, for: n.for, kind: n.kind }, 'notification'),
    );
    await node.start();
    const { host, port } = splitHostPort(config.rpc);
    const rpc = await startRpc(node, { host, port, maxBodyBytes: config.rpcMaxBodyBytes });
    process.stdout.write(
      `${JSON.stringify({ event: 'ready', peerId: node.peerId.toString(), addrs: node.addrs, rpc: rpc.url })}\n`,
    );
    log.info({ rpc: rpc.url, addrs: node.addrs }, 'ready');
    await waitForSignal();
    log.info('stopping');
    // A second signal, or a stop that hangs, ends the process anyway.
    const hard = setTimeout(() => process.exit(1), 20_000);
    hard.unref();
    await rpc.close(10_000);
    await node.stop();
    await storage?.close();
  } catch (err) {
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
