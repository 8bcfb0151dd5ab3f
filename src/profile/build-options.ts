/**
 * The profile builder's options and their defaults, apart from the builder so that the command
 * line can declare its flags without loading the language detector.
 */

/** Weight of a term in a document by the most important field it occurs in (thesis §5.2). */
export interface FieldWeights {
  keywords: number;
  text: number;
  title: number;
}

export interface BuildOptions {
  /** Terms kept in the profile, the most heavily weighted first (default 150). */
  top?: number;
  /** Field weights, keywords > body > title by default: 3, 2, 1. */
  fieldWeights?: FieldWeights;
  /** Stop words for every document, instead of each language's stopwords-iso list. */
  stopwords?: ReadonlySet<string>;
  /**
   * The language of the documents without a `lang` of their own: an ISO 639-1 code, or `auto`
   * (the default) to detect each document's language from its body text.
   */
  lang?: string;
}

export const DEFAULT_TOP_TERMS = 150;
export const DEFAULT_FIELD_WEIGHTS: FieldWeights = Object.freeze({
  keywords: 3,
  text: 2,
  title: 1,
});
