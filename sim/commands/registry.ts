/** Every command of `at … <command>`; a new one is a file here and a line below. */
import type { CommandSpec, Parsed } from '../language.ts';
import { check } from './check.ts';
import { churn } from './churn.ts';
import { create } from './create.ts';
import { kill, leave } from './depart.ts';
import { dissolve } from './dissolve.ts';
import { freeze } from './freeze.ts';
import { join } from './join.ts';
import { heal, partition } from './partition.ts';
import { search } from './search.ts';
import { update } from './update.ts';
import { republish, wait } from './wait.ts';

const BY_WORD = new Map<string, CommandSpec>();
const BY_KIND = new Map<string, CommandSpec>();

function register<C extends Parsed>(spec: CommandSpec<C>): void {
  // A parsed command's kind is one of its spec's kinds, so a spec only ever runs its own.
  const erased = spec as unknown as CommandSpec;
  BY_WORD.set(spec.word, erased);
  for (const kind of spec.kinds) BY_KIND.set(kind, erased);
}

register(join);
register(create);
register(search);
register(update);
register(dissolve);
register(kill);
register(leave);
register(wait);
register(republish);
register(churn);
register(check);
register(freeze);
register(partition);
register(heal);

/** The spec of a parsed command's kind, or of the word a command line starts with. */
export function commandSpec(key: string, by: 'kind' | 'word' = 'kind'): CommandSpec | undefined {
  return (by === 'kind' ? BY_KIND : BY_WORD).get(key);
}
