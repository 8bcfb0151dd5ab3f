import { eld } from 'eld/extrasmall';
import { AUTO, DEFAULT_LANGUAGE, isLanguageCode } from './languages.ts';

/**
 * Language detection with eld (Efficient Language Detector, Apache-2.0), its smallest n-gram
 * database: 60 languages, answers in ISO 639-1. Chosen over franc-min and tinyld, compared on
 * paragraphs in it, de, es, fr and en: all three name whole paragraphs right, but on three to
 * eight words eld was right far more often (docs/BENCHMARKS.md), and it says when its answer is
 * unreliable. It is plain ES modules with no Node APIs, so it runs in browsers. Its database is
 * its cost: about 1 MB of JavaScript, parsed when this module first loads — the command line
 * loads the profile builder only for `cidx profile build`.
 *
 * An instance of its own, so that settings another importer gives eld's shared one
 * (a language subset) do not change the languages cidx detects.
 */
const detector = eld.newInstance();

/**
 * Texts with fewer words are not detected: a few words, often names or terms shared by several
 * languages (`opera`, `violin concerto`), are where detectors guess.
 */
export const MIN_DETECT_WORDS = 5;

const segmenter = new Intl.Segmenter('en', { granularity: 'word' });
const HAS_LETTER = /\p{L}/u;

/** Whether `text` holds at least `n` words with a letter (numbers and symbols do not count). */
function hasWords(text: string, n: number): boolean {
  let count = 0;
  for (const seg of segmenter.segment(text)) {
    if (seg.isWordLike && HAS_LETTER.test(seg.segment) && ++count >= n) return true;
  }
  return false;
}

/**
 * The ISO 639-1 code of the language `text` is written in, or undefined when the text is too
 * short (under MIN_DETECT_WORDS words) or the detector's answer is not reliable. The detector
 * reads the first 1000 characters.
 */
export function detectLanguage(text: string): string | undefined {
  if (!hasWords(text, MIN_DETECT_WORDS)) return undefined;
  const result = detector.detect(text);
  return result.isReliable() && isLanguageCode(result.language) ? result.language : undefined;
}

/** How many documents were analysed in one language. */
export interface LanguageCount {
  lang: string;
  documents: number;
  /** Of those, documents whose language could not be detected and took this one. */
  undetected: number;
}

export interface DocumentLanguages {
  /** Each document's language, in document order. */
  languages: string[];
  /** Documents per language, the most first, equal counts by code. */
  counts: LanguageCount[];
}

/**
 * Each document's language: its own `lang` if it has one, else `lang` unless that is `auto`,
 * else the detected one. A document whose language cannot be detected takes the most common
 * language of the others (equal counts: the first code in alphabetical order), and English
 * when no other document has one. Codes are taken as valid (callers validate them).
 */
export function documentLanguages(
  docs: readonly { lang?: string | undefined; text: string }[],
  lang: string = AUTO,
): DocumentLanguages {
  const known = docs.map((d) => d.lang ?? (lang === AUTO ? detectLanguage(d.text) : lang));
  const tally = new Map<string, number>();
  for (const l of known) if (l !== undefined) tally.set(l, (tally.get(l) ?? 0) + 1);
  const fallback = byCount(tally)[0]?.[0] ?? DEFAULT_LANGUAGE;
  const languages = known.map((l) => l ?? fallback);
  const documents = new Map<string, number>();
  for (const l of languages) documents.set(l, (documents.get(l) ?? 0) + 1);
  const undetected = known.filter((l) => l === undefined).length;
  return {
    languages,
    counts: byCount(documents).map(([l, n]) => ({
      lang: l,
      documents: n,
      undetected: l === fallback ? undetected : 0,
    })),
  };
}

function byCount(m: Map<string, number>): [string, number][] {
  return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
