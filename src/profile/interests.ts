import { ProfileError } from './errors.ts';
import { Profile } from './profile.ts';

export interface InterestOptions {
  /** Relations below this value are pruned before the components are taken. */
  minFreq: number;
  /** Components with fewer attributes are dropped. */
  minSize: number;
}

/**
 * The user's interests (thesis §4.1, fig 4.4): view the adjacency matrix as a graph, keep the
 * edges with Rel ≥ minFreq (and Rel > 0), take the connected components by depth-first search
 * from each unvisited attribute in profile order, and drop components with fewer than minSize
 * attributes. Each interest is a weighted vector keeping the attributes' weights, attributes in
 * profile order; interests come in the order of their first attribute.
 */
export function interests(p: Profile, opts: InterestOptions): Profile[] {
  const { minFreq, minSize } = opts;
  if (typeof minFreq !== 'number' || !Number.isFinite(minFreq) || minFreq < 0) {
    throw new ProfileError('minFreq', 'must be a finite number >= 0');
  }
  if (!Number.isInteger(minSize) || minSize < 1) {
    throw new ProfileError('minSize', 'must be an integer >= 1');
  }
  const component = new Map<string, number>();
  const sizes: number[] = [];
  for (const start of p.attributes()) {
    if (component.has(start)) continue;
    const id = sizes.length;
    let size = 0;
    const stack = [start];
    component.set(start, id);
    while (stack.length > 0) {
      const o = stack.pop() as string;
      size++;
      for (const [o2, rel] of p.neighbours(o)) {
        if (rel > 0 && rel >= minFreq && !component.has(o2)) {
          component.set(o2, id);
          stack.push(o2);
        }
      }
    }
    sizes.push(size);
  }
  const groups: Map<string, number>[] = sizes.map(() => new Map());
  for (const [o, w] of p.weights) groups[component.get(o) as number]?.set(o, w);
  return groups.filter((g) => g.size >= minSize).map((g) => Profile.fromTrusted(g));
}
