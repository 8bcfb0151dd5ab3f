/**
 * `cidx sim <scenario> [--out <dir>] [--seed <n>] [--workers <n> | --processes | --netns |
 * --endpoints <file>]`:
 * parse, pick the swarm's mode, run, report; returns the exit code. Ctrl-C stops the run, writes
 * the report of what was measured and exits 130, after every node process and namespace is gone.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { EndpointsFileError, readEndpoints } from './endpoints/file.ts';
import { IN_PROCESS, runScenario } from './interpreter.ts';
import { CAPABILITIES, checkMode, type ModeName, type SwarmMode } from './modes.ts';
import { NetnsUnavailableError, requireNetns } from './netns/index.ts';
import { writeReports } from './report/write.ts';
import { parseScenario, ScenarioError, type Statement } from './scenario.ts';
import { ownSignals } from './teardown.ts';

export interface SimOptions {
  out?: string;
  seed?: number;
  progress?: boolean;
  /** Keep stack traces on errors while the scenario runs (RunOptions.stackTraces). */
  stackTraces?: boolean;
  /** Keep V8's rule for when buffers' memory starts a full collection (RunOptions.v8HeapDefaults). */
  v8HeapDefaults?: boolean;
  /** The in-process nodes spread over this many worker threads (0: one per core). */
  workers?: number;
  /** Every node its own `cidx node` process on 127.0.0.1. */
  processes?: boolean;
  /** Every node its own process in its own network namespace (root, Linux). */
  netns?: boolean;
  /** Drive the nodes listed in this file, which run elsewhere. */
  endpoints?: string;
  /** Node processes keep their /metrics (Prometheus); off by default (about 9 MiB a node). */
  nodeMetrics?: boolean;
}

/** The exit code of a run stopped by a signal: 128 + SIGINT. */
const INTERRUPTED = 130;

/**
 * 0 when every expect holds, 1 when one fails, 2 on a scenario error (message with file:line),
 * a mode the machine cannot run or nodes that cannot be reached; 130 when interrupted.
 */
export async function runSimulation(file: string, o: SimOptions = {}): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    process.stderr.write(
      `cidx: ${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})\n`,
    );
    return 2;
  }
  const out = o.out ?? `sim-out/${basename(file).replace(/\.[^.]*$/, '')}`;
  const stop = new AbortController();
  const release = ownSignals(() => stop.abort(new Error('interrupted')));
  try {
    const statements = parseScenario(text, file);
    const swarm = await modeOf(o, statements, file);
    const report = await runScenario(statements, {
      file,
      swarm,
      signal: stop.signal,
      progress: o.progress ?? true,
      stackTraces: o.stackTraces === true,
      v8HeapDefaults: o.v8HeapDefaults === true,
      seed: o.seed,
      onReport: async (r) => {
        await writeReports(r, out);
      },
    });
    const paths = await writeReports(report, out);
    if (report.scenario.interrupted) {
      process.stderr.write(`interrupted; reports of the run so far: ${paths.md}, ${paths.html}\n`);
      return INTERRUPTED;
    }
    const failed = report.expects.filter((e) => !e.pass);
    process.stderr.write(
      `${report.expects.length - failed.length}/${report.expects.length} expects hold; reports: ${paths.md}, ${paths.html}, ${paths.json}\n`,
    );
    for (const f of failed)
      process.stderr.write(
        `FAIL ${file}:${f.line}: ${f.text} (actual ${f.actual ?? 'no such metric'})\n`,
      );
    return failed.length === 0 ? 0 : 1;
  } catch (err) {
    if (
      err instanceof ScenarioError ||
      err instanceof EndpointsFileError ||
      err instanceof UnavailableMode
    ) {
      process.stderr.write(`cidx: ${err.message}\n`);
      return 2;
    }
    if (stop.signal.aborted) {
      process.stderr.write(`cidx: interrupted (${(err as Error).message})\n`);
      return INTERRUPTED;
    }
    throw err;
  } finally {
    release();
  }
}

/** A mode this machine cannot run (--netns without root, …). */
class UnavailableMode extends Error {}

/**
 * The swarm the options ask for. What the scenario needs of it is checked first, then what the
 * mode needs of the machine (root for --netns) or of the nodes (answering, with the token).
 */
async function modeOf(o: SimOptions, statements: Statement[], file: string): Promise<SwarmMode> {
  const chosen = [
    o.workers !== undefined && '--workers',
    o.processes && '--processes',
    o.netns && '--netns',
    o.endpoints && '--endpoints',
  ];
  const flags = chosen.filter((f) => typeof f === 'string');
  if (flags.length > 1) throw new UnavailableMode(`${flags.join(' and ')}: choose one`);
  const name: ModeName =
    o.endpoints !== undefined
      ? 'endpoints'
      : o.netns
        ? 'netns'
        : o.processes
          ? 'processes'
          : o.workers !== undefined
            ? 'workers'
            : 'in-process';
  checkMode(statements, { name, can: CAPABILITIES[name] }, file);
  if (o.endpoints !== undefined) {
    const { EndpointsSwarm, checkScenarioSwarm } = await import('./endpoints/swarm.ts');
    const endpoints = readEndpoints(o.endpoints, process.env.CIDX_RPC_TOKEN);
    const { swarm, params } = await EndpointsSwarm.connect(o.endpoints, endpoints);
    checkScenarioSwarm(statements, params, file);
    return {
      name: 'endpoints',
      can: CAPABILITIES.endpoints,
      create: () => swarm,
      existing: { k: params.k },
    };
  }
  if (o.workers !== undefined) {
    const { shardedSwarm } = await import('./shards/swarm.ts');
    return { name, can: CAPABILITIES.workers, create: shardedSwarm(o.workers) };
  }
  if (!o.processes && !o.netns) return IN_PROCESS;
  if (o.netns) {
    try {
      requireNetns();
    } catch (err) {
      if (err instanceof NetnsUnavailableError)
        throw new UnavailableMode(`--netns: ${err.message}`);
      throw err;
    }
  }
  const { ProcessSwarm } = await import('./processes/swarm.ts');
  const netns = name === 'netns';
  return {
    name,
    can: CAPABILITIES[name],
    create: (config, rng) =>
      new ProcessSwarm(config, rng, { netns, metrics: o.nodeMetrics === true }),
  };
}
