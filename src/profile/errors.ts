/** An input that breaks a rule; the message starts with the offending field's path. */
export class FieldError extends Error {
  /** The field path, e.g. `weights["x"]`, `relations[3][2]` or `n`. */
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = 'FieldError';
    this.field = field;
  }
}

/** A profile that breaks a rule of the profile format; the message names the offending field. */
export class ProfileError extends FieldError {
  constructor(field: string, problem: string) {
    super(field, problem);
    this.name = 'ProfileError';
  }
}
