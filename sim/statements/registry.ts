/** Every statement of the scenario language; a new one is a file here and a line below. */
import type { StatementSpec } from '../language.ts';
import { at } from './at.ts';
import { dataset } from './dataset.ts';
import { expectStatement, report } from './expect.ts';
import { network } from './network.ts';
import { index, params, seed, timing } from './setup.ts';

const STATEMENTS = new Map<string, StatementSpec>();

function register<S extends { kind: string }>(spec: StatementSpec<S>): void {
  // Parsed statements carry their spec's word as kind, so a spec only ever runs its own.
  STATEMENTS.set(spec.word, spec as unknown as StatementSpec);
}

register(seed);
register(index);
register(params);
register(timing);
register(network);
register(dataset);
register(at);
register(expectStatement);
register(report);

export function statementSpec(word: string): StatementSpec | undefined {
  return STATEMENTS.get(word);
}
