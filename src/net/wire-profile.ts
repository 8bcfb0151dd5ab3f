import { z } from 'zod';
import { FieldError, ProfileError } from '../profile/errors.ts';
import {
  DEFAULT_MAX_ATTRIBUTES,
  DEFAULT_MAX_RELATIONS,
  type ParseOptions,
  parseProfile,
} from '../profile/parse.ts';
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

/**
 * A profile as queries and signed records carry it, with full double-precision weights. A
 * decoder takes any CBOR float (half, single or double precision) as a weight.
 */
export function profileToWire(p: Profile): WireProfile {
  const json = p.toJSON();
  const out: WireProfile = { w: Object.entries(json.weights) };
  if (json.relations !== undefined) out.r = json.relations;
  return out;
}

/**
 * Refuses a wire profile with more attributes or relations than the limits allow, from the
 * lengths of its lists alone (before a single entry is read); throws ProfileError.
 */
export function checkWireCounts(w: { w?: unknown; r?: unknown }, limits: ParseOptions = {}): void {
  const maxAttributes = limits.maxAttributes ?? DEFAULT_MAX_ATTRIBUTES;
  const maxRelations = limits.maxRelations ?? DEFAULT_MAX_RELATIONS;
  if (Array.isArray(w.w) && w.w.length > maxAttributes) {
    throw new ProfileError('weights', `holds ${w.w.length} attributes, more than ${maxAttributes}`);
  }
  if (Array.isArray(w.r) && w.r.length > maxRelations) {
    throw new ProfileError('relations', `holds ${w.r.length} relations, more than ${maxRelations}`);
  }
}

/** Validates a wire profile with every rule of parseProfile; throws FieldError. */
export function profileFromWire(w: WireProfile, limits: ParseOptions = {}): Profile {
  // The counts first: a million attributes must not be turned into an object to be refused.
  checkWireCounts(w, limits);
  const weights = Object.fromEntries(w.w);
  if (Object.keys(weights).length !== w.w.length)
    throw new FieldError('weights', 'repeats an attribute');
  return parseProfile(w.r === undefined ? { weights } : { weights, relations: w.r }, limits);
}
