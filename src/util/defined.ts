/**
 * Options pass their fields on as they came (`{ seed: o.seed }`): whoever reads one treats
 * undefined as not given. Where an absent field and an undefined one differ, `definedOnly`
 * leaves out the undefined ones: CBOR writes undefined as a value, and a spread over defaults
 * (`{ ...DEFAULTS, ...definedOnly(given) }`) would otherwise replace a default with it.
 */

/** `T` without the undefined fields. */
export type DefinedOnly<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

/** The fields of `o` that are not undefined. */
export function definedOnly<T extends object>(o: T): DefinedOnly<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as DefinedOnly<T>;
}
