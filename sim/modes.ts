/**
 * How a run's nodes exist — in this process, in its worker threads, as `cidx node` processes,
 * each of those in a network namespace of its own, or already running elsewhere — and what each
 * way can do beyond the workload. A command that needs more than the run's mode can do (starting
 * or crashing nodes, freezing processes, cutting the network) is refused before the run starts,
 * naming its line.
 */
import { commandSpec } from './commands/registry.ts';
import { type Parsed, ScenarioError, type Statement } from './language.ts';
import { statementSpec } from './statements/registry.ts';
import type { SwarmFactory } from './swarm-api.ts';

/**
 * What a command may need of a swarm: `control` — start, crash and stop its nodes; `freeze` —
 * stop and resume node processes (SIGSTOP / SIGCONT); `partition` — cut the network between
 * groups of nodes; `network-model` — the in-process network model (delay, bandwidth).
 */
export type Capability = 'control' | 'freeze' | 'partition' | 'network-model';

export type ModeName = 'in-process' | 'workers' | 'processes' | 'netns' | 'endpoints';

export interface SwarmMode {
  name: ModeName;
  /** What its swarms can do beyond the workload. */
  can: ReadonlySet<Capability>;
  /** Builds the swarm a run drives. */
  create: SwarmFactory;
  /**
   * The nodes run before the scenario starts (and after it ends): there is no `join`; the
   * swarm is there from the first command, and `k` is the nodes' own.
   */
  existing?: { k: number };
}

/** How each mode is asked for, for messages: `join needs in-process nodes or --processes`. */
const HOW: Record<ModeName, string> = {
  'in-process': 'in-process nodes',
  workers: '--workers',
  processes: '--processes',
  netns: '--netns',
  endpoints: '--endpoints',
};

/** What each mode can do; a mode's implementation declares the same set. */
export const CAPABILITIES: Record<ModeName, ReadonlySet<Capability>> = {
  'in-process': new Set(['control', 'freeze', 'partition', 'network-model']),
  workers: new Set(['control', 'network-model']),
  processes: new Set(['control', 'freeze']),
  netns: new Set(['control', 'freeze', 'partition']),
  endpoints: new Set(),
};

/** The modes that can do `cap`, as a user asks for them. */
function whereAvailable(cap: Capability): string {
  const modes = (Object.keys(CAPABILITIES) as ModeName[]).filter((m) => CAPABILITIES[m].has(cap));
  return modes.map((m) => HOW[m]).join(' or ');
}

/** What a statement needs: its own spec's `needs`, or its command's for `at`. */
function needsOf(st: Statement): { word: string; needs: Capability } | undefined {
  if (st.kind === 'at') {
    const command = st.command as Parsed;
    const spec = commandSpec(command.kind);
    return spec?.needs === undefined ? undefined : { word: spec.word, needs: spec.needs };
  }
  const spec = statementSpec(st.kind);
  return spec?.needs === undefined ? undefined : { word: spec.word, needs: spec.needs };
}

/**
 * Throws ScenarioError at the first statement the mode cannot run:
 * `file:line: freeze needs --processes or --netns (this run: in-process nodes)`.
 */
export function checkMode(
  statements: readonly Statement[],
  mode: Pick<SwarmMode, 'name' | 'can'>,
  file: string,
): void {
  for (const st of statements) {
    const n = needsOf(st);
    if (n === undefined || mode.can.has(n.needs)) continue;
    throw new ScenarioError(
      file,
      st.line,
      `${n.word} needs ${whereAvailable(n.needs)} (this run: ${HOW[mode.name]})`,
    );
  }
}
