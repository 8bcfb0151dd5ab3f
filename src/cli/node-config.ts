/**
 * Settings of `cidx node`, from (lowest to highest precedence) the defaults, a JSON config file,
 * environment variables and flags; validated as a whole, so an error names the setting. The
 * config file's schema is built from the settings table.
 */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { type NodeOptions, nodeOptionsFrom } from '../node/config.ts';
import { isLoopback } from '../rpc/guard.ts';
import { problemOf, ruleOf, type Setting } from '../settings/kinds.ts';
import { type NodeSettings, SETTINGS, TIMING_RULES } from '../settings/table.ts';
import { defaultsOf, isSetting, type SettingTree } from '../settings/tree.ts';
import { UsageError } from './io.ts';

export type NodeConfig = NodeSettings;

/** Largest config file read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** The zod schema of one setting; every message is the setting's rule. */
function schemaOf(s: Setting): z.ZodType {
  const error = ruleOf(s);
  let t: z.ZodType;
  switch (s.kind) {
    case 'int':
      t = z.number({ error }).int({ error }).min(s.min, { error }).max(s.max, { error });
      break;
    case 'duration':
      t = z.number({ error }).min(s.min, { error }).max(s.max, { error });
      break;
    case 'bool':
      t = z.boolean({ error });
      break;
    case 'text':
      t = z.string({ error }).refine((v) => problemOf(s, v) === null, { error });
      break;
    case 'choice':
      t = z.literal(s.values as (string | number)[], { error });
      break;
    case 'list':
      t = z.array(z.string({ error }).min(1, { error }), { error }).min(s.minItems, { error });
      break;
  }
  return s.default === undefined ? t.optional() : t;
}

/** The config file's schema: the table's tree, every object strict (an unknown key is an error). */
export function schemaOfTree(tree: SettingTree): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, node] of Object.entries(tree))
    shape[name] = isSetting(node) ? schemaOf(node) : schemaOfTree(node);
  return z.strictObject(shape);
}

const configSchema = schemaOfTree(SETTINGS);

const DEFAULT_CONFIG: NodeConfig = defaultsOf(SETTINGS);

/** A setting that cannot be used; the message names it. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Deep-merges layers of partial settings over the defaults and validates the result. */
export function resolveConfig(...layers: Record<string, unknown>[]): NodeConfig {
  let merged: Record<string, unknown> = structuredClone(DEFAULT_CONFIG);
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
  // Built from the same table as the type: the schema's output is a NodeConfig.
  const config = parsed.data as NodeConfig;
  for (const rule of TIMING_RULES)
    if (!rule.holds(config.timing)) throw new ConfigError(`timing.${rule.field}: ${rule.problem}`);
  checkRpcAccess(config);
  return config;
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

/** Reads a JSON config file (at most 1 MiB); a problem is a one-line UsageError. */
export async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    if ((await stat(path)).size > MAX_CONFIG_BYTES)
      throw new UsageError(`--config ${path}: larger than ${MAX_CONFIG_BYTES} bytes`);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(
      `--config ${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--config ${path}: not valid JSON (${(err as Error).message})`);
  }
  if (!isPlain(file)) throw new UsageError(`--config ${path}: must be a JSON object`);
  return file as Record<string, unknown>;
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

/** What the node library needs from the settings. */
export function nodeOptions(c: NodeConfig): NodeOptions {
  return {
    transport: 'tcp',
    listen: c.listen,
    bootstrap: c.bootstrap,
    ...nodeOptionsFrom(c),
    // Host settings of a process (the swarm key's bytes are read by node-run.ts).
    reachability: c.reachability,
    relay: c.relay,
    privateSwarm: c.privateSwarm,
  };
}

/** A non-loopback RPC port needs a token: anyone who reaches it could otherwise drive the node. */
function checkRpcAccess(c: NodeConfig): void {
  const { host } = splitHostPort(c.rpc);
  if (c.rpcToken === undefined && !isLoopback(host))
    throw new ConfigError(
      `rpc: ${c.rpc} is not a loopback address: set --rpc-token (or CIDX_RPC_TOKEN)`,
    );
}
