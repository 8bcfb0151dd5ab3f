import type { Command } from 'commander';
import { UsageError } from './io.ts';
import { intIn } from './options.ts';

export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .description(
      'run a scenario on a swarm of real nodes in this process and report cost and answer quality',
    )
    .argument('<scenario>', 'scenario file (one command a line; see scenarios/README.md)')
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
    .addHelpText(
      'after',
      `
Exit code: 0 when every expect holds, 1 when one fails, 2 on a scenario error.

Example:
  cidx sim scenarios/quickstart.scenario --out out/quickstart`,
    )
    .action(
      async (
        file: string,
        o: { out?: string; seed?: number; progress: boolean; stackTraces?: boolean },
      ) => {
        // The simulator (and vega, for its charts) loads only when a simulation runs.
        const { runSimulation } = await import('../../sim/cli.ts');
        const code = await runSimulation(file, {
          progress: o.progress,
          stackTraces: o.stackTraces === true,
          out: o.out,
          seed: o.seed,
        });
        if (code !== 0)
          throw new UsageError(code === 1 ? 'some expects failed' : 'scenario error', code);
      },
    );
}
