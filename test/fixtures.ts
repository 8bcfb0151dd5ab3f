import { type Profile, parseProfile } from '../src/index.ts';

/** Thesis fig 4.1/4.6: P1 as a weighted vector. */
export const FIG_4_6_P1 = { weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62, chitarra: 0.8 } };
/** Thesis fig 4.6: P2 as a weighted vector. */
export const FIG_4_6_P2 = { weights: { Verdi: 0.81, violino: 1.3, Rigoletto: 0.7 } };
/** Thesis fig 4.2/4.7: P1 as an adjacency matrix. */
export const FIG_4_7_P1 = {
  ...FIG_4_6_P1,
  relations: [
    ['canto', 'Verdi', 0.6],
    ['canto', 'Rigoletto', 0.7],
    ['canto', 'chitarra', 0.4],
    ['Verdi', 'Rigoletto', 0.5],
  ],
};
/** Thesis fig 4.7: P2 as an adjacency matrix. */
export const FIG_4_7_P2 = {
  ...FIG_4_6_P2,
  relations: [
    ['Verdi', 'violino', 0.75],
    ['Verdi', 'Rigoletto', 0.6],
    ['violino', 'Rigoletto', 0.5],
  ],
};

/** A weighted vector of the given attributes, all of weight 1. */
export function setProfile(attributes: Iterable<string>): Profile {
  return parseProfile({ weights: Object.fromEntries([...attributes].map((a) => [a, 1])) });
}
