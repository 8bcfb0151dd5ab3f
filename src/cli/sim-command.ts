import type { Command } from 'commander';
import { UsageError } from './io.ts';
import { intIn } from './options.ts';

interface SimFlags {
  out?: string;
  seed?: number;
  progress: boolean;
  stackTraces?: boolean;
  v8HeapDefaults?: boolean;
  workers?: number;
  processes?: boolean;
  netns?: boolean;
  endpoints?: string;
  nodeMetrics?: boolean;
  cleanup?: boolean;
}

export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .description(
      'run a scenario on a swarm of real nodes (in this process, as processes, in network namespaces, or running elsewhere) and report cost and answer quality',
    )
    .argument('[scenario]', 'scenario file (one command a line; see scenarios/README.md)')
    .option(
      '--out <dir>',
      'where report.json, report.md and report.html go (default sim-out/<scenario name>)',
    )
    .option('--seed <n>', "override the scenario's seed", intIn(0, 2 ** 32 - 1))
    .option('--no-progress', 'no progress output on stderr')
    .option(
      '--stack-traces',
      'keep stack traces on errors while the scenario runs (off by default: capturing them costs a fifth of the CPU)',
    )
    .option(
      '--v8-heap-defaults',
      "keep V8's rule that every 64 MiB of buffers starts a full collection, whatever the heap's size (off by default: with many nodes in one process it makes a message's CPU grow with the swarm; docs/BENCHMARKS.md)",
    )
    .option(
      '--workers <n>',
      'spread the in-process nodes over n worker threads (0: one per core); the network model applies, partition, heal and freeze do not',
      intIn(0, 64),
    )
    .option(
      '--processes',
      'every node its own `cidx node` process (TCP + noise on 127.0.0.1, its own data directory), driven over JSON-RPC',
    )
    .option(
      '--netns',
      'as --processes, each node in its own network namespace on a private bridge (Linux, root); allows partition and heal',
    )
    .option(
      '--endpoints <file>',
      'drive nodes that run elsewhere: one JSON-RPC URL a line, optionally token=<t> or token-file=<path>',
    )
    .option('--node-metrics', 'node processes keep /metrics (off by default: about 9 MiB a node)')
    .option(
      '--cleanup',
      'remove what an interrupted run left behind (node processes, namespaces, links, temporary directories) and exit; root',
    )
    .addHelpText(
      'after',
      `
Exit code: 0 when every expect holds, 1 when one fails, 2 on a scenario error, a mode this
machine cannot run or endpoints that do not answer, 130 when interrupted (Ctrl-C: the report of
the run so far is written, every node process and namespace removed).

network needs in-process nodes (also with --workers); freeze runs in-process or on processes,
partition and heal in-process or with --netns; with --endpoints, statements that start, stop or
signal nodes (join, kill, leave, churn, freeze, partition, heal) are refused before the run,
naming their line.

Examples:
  cidx sim scenarios/quickstart.scenario --out out/quickstart
  cidx sim scenarios/quickstart.scenario --processes
  cidx sim big.scenario --workers 2
  sudo cidx sim scenarios/partition.scenario --netns
  cidx sim workload.scenario --endpoints nodes.txt
  sudo cidx sim --cleanup`,
    )
    .action(async (file: string | undefined, o: SimFlags) => {
      if (o.cleanup) {
        if (file !== undefined) throw new UsageError('--cleanup takes no scenario');
        const { runCleanup } = await import('../../sim/cleanup.ts');
        const code = await runCleanup();
        if (code !== 0) throw new UsageError('', code);
        return;
      }
      if (file === undefined)
        throw new UsageError('missing the scenario file (cidx sim <scenario>)');
      // The simulator (and vega, for its charts) loads only when a simulation runs.
      const { runSimulation } = await import('../../sim/cli.ts');
      const code = await runSimulation(file, {
        progress: o.progress,
        stackTraces: o.stackTraces === true,
        v8HeapDefaults: o.v8HeapDefaults === true,
        ...(o.workers === undefined ? {} : { workers: o.workers }),
        processes: o.processes === true,
        netns: o.netns === true,
        nodeMetrics: o.nodeMetrics === true,
        endpoints: o.endpoints,
        out: o.out,
        seed: o.seed,
      });
      // Interrupted: the report is written and every node gone; what the stopped command left
      // running (a timer, a call to a node that is no more) must not keep the process up.
      if (code === 130) process.exit(code);
      // Scenario errors and modes this machine cannot run were said already.
      if (code !== 0) throw new UsageError(code === 1 ? 'some expects failed' : '', code);
    });
}
