import { InvalidArgumentError } from 'commander';

/** Commander parser: an integer within [min, max]. */
export function intIn(min: number, max: number) {
  return (raw: string): number => {
    const v = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(v) || v < min || v > max) {
      throw new InvalidArgumentError(`must be an integer in [${min}, ${max}]`);
    }
    return v;
  };
}

/** Commander parser: a finite number ≥ min (or > min when `exclusive`). */
export function numberFrom(min: number, exclusive = false) {
  return (raw: string): number => {
    const v = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(v) || v < min || (exclusive && v === min)) {
      throw new InvalidArgumentError(`must be a finite number ${exclusive ? '>' : '>='} ${min}`);
    }
    return v;
  };
}

/** Commander parser: one of the listed choices. */
export function oneOf<T extends string>(choices: readonly T[]) {
  return (raw: string): T => {
    if (!(choices as readonly string[]).includes(raw)) {
      throw new InvalidArgumentError(`must be one of ${choices.join(', ')}`);
    }
    return raw as T;
  };
}
