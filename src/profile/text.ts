import { stemmer } from 'stemmer';
import stopwordsIso from 'stopwords-iso' with { type: 'json' };

/** The English stop-word list of stopwords-iso (≈1300 words; the thesis used Terrier's ≈730). */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  (stopwordsIso as Record<string, string[]>).en,
);

const segmenter = new Intl.Segmenter('en', { granularity: 'word' });
const HAS_LETTER = /\p{L}/u;
const POSSESSIVE = /'s$/;
const EDGE_QUOTES = /^'+|'+$/g;

/**
 * Text → terms as the thesis built them (§5.2): Unicode word segmentation (Intl.Segmenter),
 * lower case, possessive 's dropped, stop words removed, Porter stemming. Tokens without a letter (numbers, symbols)
 * and one-character tokens are dropped; stop words are checked before and after stemming.
 */
export function analyze(
  text: string,
  stopwords: ReadonlySet<string> = ENGLISH_STOPWORDS,
): string[] {
  const out: string[] = [];
  for (const seg of segmenter.segment(text.replaceAll('\u2019', "'"))) {
    if (!seg.isWordLike) continue;
    // Possessives and quotes: "verdi's" and "'verdi'" are the term verdi.
    const token = seg.segment.toLowerCase().replace(POSSESSIVE, '').replace(EDGE_QUOTES, '');
    if (token.length < 2 || !HAS_LETTER.test(token) || stopwords.has(token)) continue;
    const stem = stemmer(token);
    if (stem.length < 2 || stopwords.has(stem)) continue;
    out.push(stem);
  }
  return out;
}
