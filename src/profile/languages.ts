import ISO6391 from 'iso-639-1';

/**
 * The languages whose documents are stemmed (ISO 639-1): English with the Porter stemmer, the
 * others with their Snowball stemmer (stemmers.ts holds the functions; this list stays free of
 * them so that validating a flag does not load them). Documents in any other language keep
 * their tokens unstemmed, lower-cased.
 */
export const STEMMED_LANGUAGES: readonly string[] = Object.freeze([
  'ar',
  'da',
  'de',
  'el',
  'en',
  'es',
  'fi',
  'fr',
  'ga',
  'hi',
  'hu',
  'hy',
  'id',
  'it',
  'lt',
  'nb',
  'ne',
  'nl',
  'no',
  'pt',
  'ro',
  'ru',
  'sr',
  'sv',
  'ta',
  'tr',
]);

/** The language analysed when none is given and none can be detected. */
export const DEFAULT_LANGUAGE = 'en';

/** `lang` option value: detect each document's language. */
export const AUTO = 'auto';

/** True for a two-letter ISO 639-1 language code, lower case (`it`, not `IT` or `it-IT`). */
export function isLanguageCode(code: unknown): code is string {
  return typeof code === 'string' && ISO6391.validate(code);
}

/** The problem with a `lang` value, or undefined when it is `auto` or an ISO 639-1 code. */
export function langProblem(value: unknown, allowAuto: boolean): string | undefined {
  if (isLanguageCode(value) || (allowAuto && value === AUTO)) return undefined;
  return `must be ${allowAuto ? `"${AUTO}" or ` : ''}an ISO 639-1 language code in lower case, such as "en" or "it"`;
}
