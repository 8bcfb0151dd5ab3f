import stopwordsIso from 'stopwords-iso' with { type: 'json' };
import { detectLanguage } from './detect.ts';
import { ProfileError } from './errors.ts';
import { AUTO, DEFAULT_LANGUAGE, langProblem } from './languages.ts';
import { STEMMERS } from './stemmers.ts';

const STOPWORDS_ISO = stopwordsIso as Record<string, string[]>;

/** The English stop-word list of stopwords-iso (≈1300 words; the thesis used Terrier's ≈730). */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(STOPWORDS_ISO.en);

const stopwordSets = new Map<string, ReadonlySet<string>>([['en', ENGLISH_STOPWORDS]]);

/**
 * The stopwords-iso list of a language (ISO 639-1), empty for a language it has no list for.
 * Sets are made on first use: most runs see one or two languages of the 58.
 */
export function stopwordsFor(lang: string): ReadonlySet<string> {
  let set = stopwordSets.get(lang);
  if (set === undefined) {
    // stopwords-iso files Norwegian under `no`, which is Bokmål in practice.
    set = new Set(STOPWORDS_ISO[lang === 'nb' ? 'no' : lang] ?? []);
    stopwordSets.set(lang, set);
  }
  return set;
}

export interface AnalyzeOptions {
  /**
   * The text's language, an ISO 639-1 code, or `auto` (the default): detected, English when
   * the text is too short to tell.
   */
  lang?: string;
  /** Stop words instead of the language's stopwords-iso list. */
  stopwords?: ReadonlySet<string>;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'word' });
const HAS_LETTER = /\p{L}/u;
const POSSESSIVE = /'s$/;
const EDGE_QUOTES = /^'+|'+$/g;
// Languages whose lower case differs from the default mapping (dotted and dotless i).
const LOCALE_LOWER_CASE = new Set(['tr', 'az']);

/**
 * Text → terms as the thesis built them (§5.2), in the text's language: Unicode word
 * segmentation (Intl.Segmenter), lower case, stop words removed, stemming (Porter for English,
 * Snowball for the languages in STEMMED_LANGUAGES, none for others). Tokens without a letter
 * (numbers, symbols) and one-character tokens are dropped; stop words are checked before and
 * after stemming. A set as the second argument is taken as `{ stopwords }`.
 */
export function analyze(text: string, opts: AnalyzeOptions | ReadonlySet<string> = {}): string[] {
  const o: AnalyzeOptions = isSet(opts) ? { stopwords: opts } : opts;
  const lang = o.lang ?? AUTO;
  const problem = langProblem(lang, true);
  if (problem !== undefined) throw new ProfileError('lang', problem);
  const resolved = lang === AUTO ? (detectLanguage(text) ?? DEFAULT_LANGUAGE) : lang;
  return analyzeIn(text, resolved, o.stopwords ?? stopwordsFor(resolved));
}

/** `analyze` for a text whose language (a valid ISO 639-1 code) is known. */
export function analyzeIn(text: string, lang: string, stopwords: ReadonlySet<string>): string[] {
  return lang === 'en' ? analyzeEnglish(text, stopwords) : analyzeOther(text, lang, stopwords);
}

/** English exactly as before languages were told apart: English profiles stay byte-identical. */
function analyzeEnglish(text: string, stopwords: ReadonlySet<string>): string[] {
  const stem = STEMMERS.en as (w: string) => string;
  const out: string[] = [];
  for (const seg of segmenter.segment(text.replaceAll('\u2019', "'"))) {
    if (!seg.isWordLike) continue;
    // Possessives and quotes: "verdi's" and "'verdi'" are the term verdi.
    const token = seg.segment.toLowerCase().replace(POSSESSIVE, '').replace(EDGE_QUOTES, '');
    if (token.length < 2 || !HAS_LETTER.test(token) || stopwords.has(token)) continue;
    const stemmed = stem(token);
    if (stemmed.length < 2 || stopwords.has(stemmed)) continue;
    out.push(stemmed);
  }
  return out;
}

function analyzeOther(text: string, lang: string, stopwords: ReadonlySet<string>): string[] {
  const stem = STEMMERS[lang];
  const lower = LOCALE_LOWER_CASE.has(lang)
    ? (s: string) => s.toLocaleLowerCase(lang)
    : (s: string) => s.toLowerCase();
  const out: string[] = [];
  const add = (token: string) => {
    if (token.length < 2 || !HAS_LETTER.test(token) || stopwords.has(token)) return;
    const stemmed = stem === undefined ? token : stem(token);
    if (stemmed.length < 2 || stopwords.has(stemmed)) return;
    out.push(stemmed);
  };
  // NFC: the stemmers and stop-word lists spell accented letters precomposed.
  for (const seg of segmenter.segment(text.normalize('NFC').replaceAll('\u2019', "'"))) {
    if (!seg.isWordLike) continue;
    const word = lower(seg.segment);
    // Elision keeps article and noun one segment (l'acqua, dell'acquario, d'étoiles): the parts
    // are terms of their own, unless the whole is a stop word (aujourd'hui).
    if (!word.includes("'")) add(word);
    else if (!stopwords.has(word)) for (const part of word.split("'")) add(part);
  }
  return out;
}

function isSet(x: AnalyzeOptions | ReadonlySet<string>): x is ReadonlySet<string> {
  return typeof (x as ReadonlySet<string>).has === 'function';
}
