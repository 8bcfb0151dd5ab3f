/** A profile that breaks a rule of the profile format; the message names the offending field. */
export class ProfileError extends Error {
  /** The field path, e.g. `weights["x"]` or `relations[3][2]`. */
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = 'ProfileError';
    this.field = field;
  }
}
