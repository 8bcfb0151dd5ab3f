import { z } from 'zod';
import { FieldError } from '../profile/errors.ts';
import { type ParseOptions, parseProfile } from '../profile/parse.ts';
import type { Profile } from '../profile/profile.ts';

/**
 * A profile on the wire: weights as [attribute, weight] pairs (an array, so attribute names are
 * never object keys while decoding), relations as in the profile JSON.
 */
export const wireProfileSchema = z.object({
  w: z.array(z.tuple([z.string(), z.number()])),
  r: z.array(z.tuple([z.string(), z.string(), z.number()])).optional(),
});
export type WireProfile = z.infer<typeof wireProfileSchema>;

export function profileToWire(p: Profile): WireProfile {
  const json = p.toJSON();
  const out: WireProfile = { w: Object.entries(json.weights) };
  if (json.relations !== undefined) out.r = json.relations;
  return out;
}

/** Validates a wire profile with every rule of parseProfile; throws FieldError. */
export function profileFromWire(w: WireProfile, limits: ParseOptions = {}): Profile {
  const weights = Object.fromEntries(w.w);
  if (Object.keys(weights).length !== w.w.length)
    throw new FieldError('weights', 'repeats an attribute');
  return parseProfile(w.r === undefined ? { weights } : { weights, relations: w.r }, limits);
}
