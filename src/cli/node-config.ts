/**
 * Settings of `cidx node`, from (lowest to highest precedence) defaults, a JSON config file,
 * environment variables and flags; validated as a whole so an error names the setting.
 */
import { z } from 'zod';
import { FAMILIES } from '../keys/params.ts';
import { RELAY_RANGES } from '../net/relay.ts';
import type { NodeOptions } from '../node/config.ts';
import { isLoopback, tokenProblem } from '../rpc/guard.ts';

export const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug', 'trace'] as const;

const positiveMs = z.number().positive();
export const configSchema = z.strictObject({
  listen: z.array(z.string()).min(1),
  bootstrap: z.array(z.string()),
  rpc: z
    .string()
    .regex(/^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:7070'),
  data: z.string().min(1).optional(),
  index: z.enum(['attribute', 'lsh']),
  lsh: z.strictObject({
    n: z.number().int().min(1).max(1024),
    m: z.number().int().min(1).max(64),
    seed: z.string().min(1),
    family: z.enum(FAMILIES),
    bits: z.union([z.literal(8), z.literal(16), z.literal(32), z.literal(64)]),
  }),
  k: z.number().int().min(1).max(1000),
  l: z.number().int().min(0).max(1000),
  s: z.number().int().min(0).max(1000),
  replicas: z.number().int().min(1).max(8),
  timing: z
    .strictObject({
      requestTimeoutMs: positiveMs,
      lookupTimeoutMs: positiveMs,
      republishIntervalMs: positiveMs,
      recordTtlMs: positiveMs,
      tombstoneTtlMs: positiveMs,
      expireIntervalMs: positiveMs,
      bootstrapRetryMs: positiveMs,
      closestCacheMs: z.number().min(0),
    })
    .partial(),
  limits: z
    .strictObject({
      maxFrameBytes: z.number().int().min(4096),
      maxAttributes: z.number().int().min(1),
      maxRelations: z.number().int().min(1),
      concurrency: z.number().int().min(1),
      queryReplicas: z.number().int().min(1),
      inboxCapacity: z.number().int().min(1),
      inboxFilterCells: z.number().int().min(1024),
      maxInboundStreams: z.number().int().min(1),
      quotaPerOwnerPerKey: z.number().int().min(1),
      quotaPerOwner: z.number().int().min(1),
      peerRequestsPerSecond: z.number().int().min(1),
    })
    .partial(),
  rpcMaxBodyBytes: z.number().int().min(1024),
  logLevel: z.enum(LOG_LEVELS),
  // RPC port access and operation (src/rpc/guard.ts, src/rpc/metrics.ts)
  rpcToken: z
    .string()
    .refine((t) => tokenProblem(t) === undefined, {
      error: (i) => tokenProblem(String(i.input)) ?? 'invalid',
    })
    .optional(),
  rpcVhosts: z.array(z.string().min(1)),
  metrics: z.boolean(),
  // ── reachability, relays, private swarms (src/net/reachability.ts, relay.ts, swarm-key.ts) ──
  reachability: z.enum(['auto', 'public', 'private']),
  /** Path of the swarm's pre-shared key file. */
  swarmKey: z.string().min(1).optional(),
  /**
   * Whether `auto` treats the swarm as numbered in private ranges and serves at once (default:
   * when every bootstrap address is private-range). false: wait for AutoNAT anyway (a NAT test
   * bed numbered in private ranges).
   */
  privateSwarm: z.boolean().optional(),
  relay: z
    .strictObject(
      Object.fromEntries(
        Object.entries(RELAY_RANGES).map(([k, [min, max]]) => [
          k,
          z.number().int().min(min).max(max),
        ]),
      ) as Record<keyof typeof RELAY_RANGES, z.ZodNumber>,
    )
    .partial(),
  // ── end of reachability settings ──
});
export type NodeConfig = z.infer<typeof configSchema>;

export const DEFAULT_CONFIG: NodeConfig = {
  listen: ['/ip4/127.0.0.1/tcp/0'],
  bootstrap: [],
  rpc: '127.0.0.1:7070',
  index: 'lsh',
  lsh: { n: 20, m: 1, seed: 'cidx', family: 'oph', bits: 64 },
  k: 5,
  l: 3,
  s: 5,
  replicas: 3,
  timing: {},
  limits: {},
  rpcMaxBodyBytes: 8 * 1024 * 1024,
  logLevel: 'warn',
  rpcVhosts: [],
  metrics: true,
  // ── reachability settings ──
  reachability: 'auto',
  relay: {},
};

/** A setting that cannot be used; the message names it. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Deep-merges layers of partial settings over the defaults and validates the result. */
export function resolveConfig(...layers: Record<string, unknown>[]): NodeConfig {
  let merged: Record<string, unknown> = structuredClone(DEFAULT_CONFIG) as Record<string, unknown>;
  for (const layer of layers) merged = mergeDeep(merged, layer);
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map(String).join('.') ?? '';
    const msg =
      issue?.code === 'unrecognized_keys'
        ? `unknown setting(s) ${issue.keys.join(', ')}`
        : issue?.message;
    throw new ConfigError(`${path || 'config'}: ${msg}`);
  }
  return parsed.data;
}

function mergeDeep(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    const b = out[k];
    out[k] =
      isPlain(v) && isPlain(b)
        ? mergeDeep(b as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

function isPlain(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Splits host:port ("[::1]:7070" for IPv6). */
export function splitHostPort(s: string): { host: string; port: number } {
  const i = s.lastIndexOf(':');
  const host = s.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(s.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`rpc: port ${s.slice(i + 1)} is out of range`);
  return { host, port };
}

/** A non-loopback RPC port needs a token: anyone who reaches it could otherwise drive the node. */
export function checkRpcAccess(c: NodeConfig): void {
  const { host } = splitHostPort(c.rpc);
  if (c.rpcToken === undefined && !isLoopback(host))
    throw new ConfigError(
      `rpc: ${c.rpc} is not a loopback address: set --rpc-token (or CIDX_RPC_TOKEN)`,
    );
}

/** What the node library needs from the settings. */
export function nodeOptions(c: NodeConfig): NodeOptions {
  return {
    transport: 'tcp',
    listen: c.listen,
    bootstrap: c.bootstrap,
    swarm: {
      index: c.index === 'attribute' ? { mode: 'attribute' } : { mode: 'lsh', ...c.lsh },
      k: c.k,
      l: c.l,
      s: c.s,
      replicas: c.replicas,
    },
    timing: c.timing,
    limits: c.limits,
    // ── reachability settings (the swarm key's bytes are read by the command) ──
    reachability: c.reachability,
    relay: c.relay,
    ...(c.privateSwarm === undefined ? {} : { privateSwarm: c.privateSwarm }),
  };
}
