/**
 * Validation of every method's params with the shared schemas (./api.ts): a bad one is answered with -32602 and a message that
 * names the field, e.g. `params.k: must be an integer in [1, 1000]` or
 * `params.profile.weights["x"]: must be a finite number > 0`.
 */
import type { z } from 'zod';
import { FieldError, ProfileError } from '../profile/errors.ts';
import { type ParseOptions, parseProfile } from '../profile/parse.ts';
import type { Profile } from '../profile/profile.ts';
import { type MethodName, paramSchemas } from './api.ts';

export { type MethodName, paramSchemas };

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
