import { type Command, Option } from 'commander';
import { UsageError } from './io.ts';
import { ConfigError, type NodeConfig, readConfigFile, resolveConfig } from './node-config.ts';
import { addSettingOptions, envToConfig, flagsToConfig, SETTINGS_HELP } from './settings-cli.ts';

export function registerNodeCommand(program: Command): void {
  const cmd = program
    .command('node')
    .description(
      'run a cidx node: join a swarm over TCP, serve JSON-RPC on a local port, keep state on disk',
    );
  addSettingOptions(cmd);
  cmd
    .addOption(
      new Option('--config <file>', 'JSON settings file (environment and flags override it)').env(
        'CIDX_CONFIG',
      ),
    )
    .option('--print-config', 'print the resolved settings as JSON (a --config file) and exit')
    .addHelpText(
      'after',
      `${SETTINGS_HELP}

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
  cidx node --record-ttl 4h --republish-interval 1h --print-config > swarm.json
  cidx node --reachability public --listen /ip4/0.0.0.0/tcp/4001 --listen /ip4/0.0.0.0/tcp/4002/ws
  cidx node --swarm-key swarm.key --bootstrap /ip4/…/tcp/4001/p2p/12D3KooW…
  CIDX_RPC_TOKEN=$(openssl rand -hex 24) cidx node --rpc 0.0.0.0:7070 --rpc-vhosts node1.lan`,
    )
    .action(async (flags: { config?: string; printConfig?: boolean }, command: Command) => {
      const config = await loadConfig(command, flags.config, process.env);
      if (flags.printConfig === true) {
        process.stdout.write(`${JSON.stringify(config, null, 2)}\n`);
        return;
      }
      // The node itself (libp2p, LevelDB, the RPC server) loads only to run.
      const { runNode } = await import('./node-run.ts');
      await runNode(config);
    });
}

/** Defaults < config file < environment < flags, validated as a whole. */
async function loadConfig(
  command: Command,
  configFile: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<NodeConfig> {
  const file = configFile === undefined ? {} : await readConfigFile(configFile);
  try {
    return resolveConfig(file, envToConfig(env), flagsToConfig(command));
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(`config: ${err.message}`);
    throw err;
  }
}
