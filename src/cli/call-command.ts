/** `cidx call`: one JSON-RPC call to a running node, through the typed client. */
import { type Command, Option } from 'commander';
import { z } from 'zod';
import { CidxClient, CidxHttpError, CidxRpcError } from '../client/index.ts';
import { METHOD_HELP, METHOD_NAMES, type MethodName, paramSchemas } from '../rpc/api.ts';
import { readText, UsageError } from './io.ts';
import { intIn } from './options.ts';

interface CallFlags {
  rpc: string;
  token?: string;
  timeout: number;
  list?: boolean;
}

/** Largest params file read (bytes): a profile has at most 4096 attributes and their relations. */
const MAX_PARAMS_BYTES = 64 * 1024 * 1024;

export function registerCallCommand(program: Command): void {
  program
    .command('call')
    .description('call a JSON-RPC method of a running node; prints the result as JSON')
    .argument('[method]', 'the method, e.g. community.search (cidx call --list shows them all)')
    .argument('[params]', 'params as JSON, or @file (@- for stdin)')
    .addOption(
      new Option('--rpc <url>', 'the node’s RPC URL (or host:port)')
        .default('http://127.0.0.1:7070')
        .env('CIDX_RPC'),
    )
    .addOption(
      new Option('--token <token>', 'sent as Authorization: Bearer <token>').env('CIDX_RPC_TOKEN'),
    )
    .addOption(
      new Option('--timeout <ms>', 'give up after this long (ms)')
        .argParser(intIn(1, 3_600_000))
        .default(120_000),
    )
    .option('--list', 'list the methods and their params')
    .addHelpText(
      'after',
      `
Exit codes: 0 success, 1 the node answered an error (code and message on stderr) or could not
be reached, 2 bad usage (unknown method, params not JSON).

Examples:
  cidx call node.info
  cidx call community.search '{"profile":{"weights":{"Verdi":1,"opera":0.8}},"k":3}'
  cidx call community.create @community.json --rpc http://10.0.0.5:7070 --token "$TOKEN"
  cidx profile build notes/*.txt | jq '{profile: .}' | cidx call community.join @-
  cidx call notifications.list '{"since":10}' | jq '.notifications[].community.id'
  cidx call --list`,
    )
    .action(async (method: string | undefined, params: string | undefined, f: CallFlags) => {
      if (f.list) {
        process.stdout.write(describeMethods());
        return;
      }
      if (method === undefined) throw new UsageError('call: a method is needed (see --list)');
      if (!(METHOD_NAMES as string[]).includes(method))
        throw new UsageError(`call: unknown method ${method} (see cidx call --list)`);
      const parsed = params === undefined ? undefined : await readParams(params);
      let client: CidxClient;
      try {
        client = new CidxClient(f.rpc, { timeoutMs: f.timeout, token: f.token });
      } catch (err) {
        throw new UsageError(`--rpc: ${(err as Error).message}`);
      }
      try {
        const result = await client.call(method as MethodName, parsed as never);
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      } catch (err) {
        if (err instanceof CidxRpcError)
          throw new UsageError(`${method}: ${err.message} (code ${err.code})`, 1);
        if (err instanceof CidxHttpError) throw new UsageError(`${method}: ${err.message}`, 1);
        throw err;
      }
    });
}

async function readParams(arg: string): Promise<unknown> {
  const text = arg.startsWith('@') ? await readText(arg.slice(1), MAX_PARAMS_BYTES) : arg;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`call: params are not valid JSON (${(err as Error).message})`);
  }
}

interface JsonSchema {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
}

/** Every method with its params, read from the schemas the node validates with. */
function describeMethods(): string {
  const out: string[] = [];
  for (const m of METHOD_NAMES) {
    out.push(`${m}  — ${METHOD_HELP[m]}`);
    const s = z.toJSONSchema(paramSchemas[m] as z.ZodType, {
      io: 'input',
      unrepresentable: 'any',
    }) as JsonSchema;
    const props = Object.entries(s.properties ?? {});
    if (props.length === 0) out.push('    (no params)');
    for (const [name, p] of props) {
      const req = s.required?.includes(name) ? '' : '?';
      out.push(`    ${`${name}${req}`.padEnd(10)} ${typeOf(p).padEnd(22)} ${p.description ?? ''}`);
    }
  }
  return `${out.join('\n')}\n`;
}

function typeOf(p: JsonSchema): string {
  if (p.type === undefined) return 'json';
  if (p.type === 'array') return `${typeOf(p.items ?? {})}[]`;
  if (p.minimum !== undefined && p.maximum !== undefined && p.maximum < 2 ** 53 - 1)
    return `${p.type} ${p.minimum}..${p.maximum}`;
  if (p.minimum !== undefined) return `${p.type} >= ${p.minimum}`;
  return p.type;
}
