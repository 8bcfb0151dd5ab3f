/**
 * The shape of the scenario language: what a statement or a command is made of. A statement
 * (`seed`, `dataset`, `at`, …) or a command (`join`, `search`, …) is one spec — the word that
 * starts it, how its line is parsed, how it runs — in a file of its own under sim/statements/ or
 * sim/commands/, listed in that directory's registry.ts. Parsing checks everything a line can
 * get wrong, so a run never stops at a typo in its line 40.
 */
import type { RunContext } from './context.ts';
import type { Run } from './interpreter.ts';
import type { LineParser } from './line-parser.ts';
import type { Capability } from './modes.ts';

export class ScenarioError extends Error {
  constructor(file: string, line: number, problem: string) {
    super(`${file}:${line}: ${problem}`);
    this.name = 'ScenarioError';
  }
}

export type Op = '<' | '<=' | '==' | '>=' | '>';
/** Live nodes by join order: `all`, `7`, `0-9`, `random`, `random5`. */
export type Selector =
  | { kind: 'all' }
  | { kind: 'range'; from: number; to: number }
  | { kind: 'random'; count: number };
/** `30` nodes or `30%` of them. */
export type Amount = { kind: 'count'; n: number } | { kind: 'percent'; p: number };

/** What parsing knows beyond the line: the data sets declared so far. */
export interface ParseScope {
  datasets: Set<string>;
}

/** Where a statement stands in its file. */
interface Located {
  line: number;
  /** The statement's text, comments stripped. */
  text: string;
}

/** A parsed statement or command: a `kind` and its own fields. */
export interface Parsed {
  kind: string;
}

export interface StatementSpec<S extends Parsed = Parsed> {
  /** The word a statement line starts with; also its kind. */
  word: S['kind'];
  parse(p: LineParser, scope: ParseScope): S;
  run(s: S & Located, run: Run): Promise<void>;
  /** What it needs of the swarm beyond the workload; refused before the run otherwise (modes.ts). */
  needs?: Capability;
}

export interface CommandSpec<C extends Parsed = Parsed> {
  /** The word the command starts with, after `at <time>`. */
  word: string;
  /** The kinds its parse returns (`wait` gives `wait` or `wait-republish`). */
  kinds: readonly C['kind'][];
  parse(p: LineParser, scope: ParseScope): C;
  /** What it needs of the swarm beyond the workload; refused before the run otherwise (modes.ts). */
  needs?: Capability;
  /** Runs it; the returned note goes into the report's timeline. */
  run(c: C, ctx: RunContext): Promise<string | undefined>;
}

/** A parsed statement with its place in the file. */
export type Statement = Parsed & Located & Record<string, unknown>;
