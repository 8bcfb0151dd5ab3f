/**
 * Schemas of every method's params (zod): a bad one is answered with -32602 and a message that
 * names the field, e.g. `params.k: must be an integer in [1, 1000]` or
 * `params.profile.weights["x"]: must be a finite number > 0`.
 */
import { z } from 'zod';
import { FieldError, ProfileError } from '../profile/errors.ts';
import { type ParseOptions, parseProfile } from '../profile/parse.ts';
import type { Profile } from '../profile/profile.ts';

const id = z.string({ error: 'must be a community id (64 hex digits)' }).regex(/^[0-9a-f]{64}$/, {
  error: 'must be a community id (64 hex digits)',
});
/** An integer in [min, max], with the message the rest of cidx uses. */
const intIn = (min: number, max: number) => {
  const error = `must be an integer in [${min}, ${max}]`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};
const contacts = z.array(z.string({ error: 'must be a multiaddr string' }), {
  error: 'must be an array of multiaddrs',
});

export const paramSchemas = {
  'node.info': z.strictObject({}).optional(),
  'community.create': z.strictObject({
    profile: z.unknown(),
    contacts: contacts.optional(),
    notify: intIn(0, 1000).optional(),
  }),
  'community.update': z.strictObject({
    id,
    profile: z.unknown(),
    contacts: contacts.optional(),
    notify: intIn(0, 1000).optional(),
  }),
  'community.dissolve': z.strictObject({ id }),
  'community.get': z.strictObject({ id }),
  'community.list': z.strictObject({}).optional(),
  'community.search': z.strictObject({ profile: z.unknown(), k: intIn(1, 1000).optional() }),
  'community.join': z.strictObject({
    profile: z.unknown(),
    minFreq: z
      .number({ error: 'must be a number >= 0' })
      .min(0, { error: 'must be a number >= 0' })
      .optional(),
    minSize: intIn(1, 1_000_000).optional(),
    k: intIn(1, 1000).optional(),
  }),
  'notifications.list': z
    .strictObject({ since: intIn(0, Number.MAX_SAFE_INTEGER).optional() })
    .optional(),
  stats: z.strictObject({}).optional(),
} as const;

export type MethodName = keyof typeof paramSchemas;

/** Validates params; throws FieldError naming the first bad field. */
export function checkParams<M extends MethodName>(
  method: M,
  raw: unknown,
): z.infer<(typeof paramSchemas)[M]> {
  const parsed = paramSchemas[method].safeParse(raw);
  if (parsed.success) return parsed.data as z.infer<(typeof paramSchemas)[M]>;
  const issue = parsed.error.issues[0];
  const path = ['params', ...(issue?.path ?? [])]
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  if (issue?.code === 'unrecognized_keys')
    throw new FieldError(path, `unknown field(s): ${issue.keys.join(', ')}`);
  if (issue?.code === 'invalid_type' && issue.path.length === 0)
    throw new FieldError(path, 'must be an object');
  throw new FieldError(path, issue?.message ?? 'is invalid');
}

/** A profile param, validated with every profile rule; errors are prefixed with its path. */
export function profileParam(raw: unknown, limits: ParseOptions): Profile {
  try {
    return parseProfile(raw, limits);
  } catch (err) {
    if (!(err instanceof ProfileError)) throw err;
    const problem = err.message.slice(err.field.length + 2);
    throw new FieldError(
      err.field === 'profile' ? 'params.profile' : `params.profile.${err.field}`,
      problem,
    );
  }
}
