import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  analyze,
  buildProfile,
  detectLanguage,
  isLanguageCode,
  ProfileError,
  parseDocument,
  parseJsonLines,
  STEMMED_LANGUAGES,
  stopwordsFor,
  type UserDocument,
} from '../../src/index.ts';
import { STEMMERS } from '../../src/profile/stemmers.ts';
import { PARAGRAPHS, type ParagraphLanguage } from './fixtures/paragraphs.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const docsOf = (lang: ParagraphLanguage): UserDocument[] =>
  PARAGRAPHS[lang].map((text) => ({ text }));
const top = (docs: UserDocument[], n = 15, lang?: string) =>
  [...buildProfile(docs, { lang }).vector.attributes()].slice(0, n);

describe('profiles in the language of the documents', () => {
  it.each(['it', 'de', 'es', 'fr', 'en'] as const)(
    '%s: detects the language, and no stop word of it is among the top terms',
    (lang) => {
      const built = buildProfile(docsOf(lang));
      expect(built.languages).toEqual([
        { lang, documents: PARAGRAPHS[lang].length, undetected: 0 },
      ]);
      const stop = stopwordsFor(lang);
      const terms = [...built.vector.attributes()].slice(0, 15);
      expect(terms).toHaveLength(15);
      expect(terms.filter((t) => stop.has(t))).toEqual([]);
    },
  );

  it('Italian: without its own stop words and stemmer, stop words lead and filtro/filtri split', () => {
    // The same paragraphs analysed as English (what every document got before).
    const asEnglish = top(docsOf('it'), 15, 'en');
    expect(asEnglish.filter((t) => stopwordsFor('it').has(t)).length).toBeGreaterThan(5);
    expect(asEnglish).toContain('filtro');
    const italian = top(docsOf('it'), 150);
    expect(italian[0]).toBe('filtr');
    expect(italian).not.toContain('filtro');
    expect(italian).not.toContain('filtri');
  });

  it.each([
    ['it', ['filtro', 'filtri'], 'filtr'],
    ['de', ['wanderung', 'wanderungen'], 'wander'],
    ['es', ['pan', 'panes'], 'pan'],
    ['fr', ['télescope', 'télescopes'], 'télescop'],
  ] as const)('%s: inflected forms %j become the one attribute %s', (lang, forms, stem) => {
    const { vector } = buildProfile(docsOf(lang));
    for (const form of forms) {
      // Both forms really occur in the paragraphs …
      expect(PARAGRAPHS[lang].some((p) => p.toLowerCase().includes(form))).toBe(true);
      expect(analyze(form, { lang })).toEqual([stem]);
      if (form !== stem) expect(vector.has(form)).toBe(false);
    }
    // … and count as one term: a weight at least that of a term in every paragraph with either.
    const withEither = PARAGRAPHS[lang].filter((p) =>
      forms.some((f) => p.toLowerCase().includes(f)),
    ).length;
    expect(vector.weight(stem)).toBeGreaterThanOrEqual((2 * withEither) / PARAGRAPHS[lang].length);
  });

  it('an English profile is byte-identical to the one built before languages were told apart', () => {
    const docs = parseJsonLines(
      readFileSync(join(FIXTURES, 'english-docs.jsonl'), 'utf8'),
      'english-docs.jsonl',
    ).map(({ line, value }) => parseDocument(value, `english-docs.jsonl:${line}`));
    for (const lang of [undefined, 'en']) {
      const built = buildProfile(docs, { lang });
      expect(built.languages).toEqual([{ lang: 'en', documents: docs.length, undetected: 0 }]);
      expect(`${JSON.stringify(built.vector.toJSON())}\n`).toBe(
        readFileSync(join(FIXTURES, 'english-vector.jsonl'), 'utf8'),
      );
      expect(`${JSON.stringify(built.matrix.toJSON())}\n`).toBe(
        readFileSync(join(FIXTURES, 'english-matrix.jsonl'), 'utf8'),
      );
    }
  });

  it('a mixed collection gives terms of both languages, each analysed in its own', () => {
    const built = buildProfile([...docsOf('it'), ...docsOf('en')]);
    expect(built.languages).toEqual([
      { lang: 'it', documents: 8, undetected: 0 },
      { lang: 'en', documents: 6, undetected: 0 },
    ]);
    const terms = top([...docsOf('it'), ...docsOf('en')], 10);
    expect(terms).toEqual(expect.arrayContaining(['filtr', 'vasc', 'bee', 'hive']));
    const all = [...built.vector.attributes()];
    expect(all).not.toContain('filtri');
    // Porter's stems for the English documents (colonies → coloni); none of the Italian stop
    // words that lead the same paragraphs analysed as English.
    expect(all).toContain('coloni');
    for (const w of ['di', 'che', 'una', 'sono', 'del', 'della']) expect(all).not.toContain(w);
  });

  it('lang overrides detection; a document’s own lang overrides both', () => {
    const forced = buildProfile(docsOf('it'), { lang: 'en' });
    expect(forced.languages).toEqual([{ lang: 'en', documents: 8, undetected: 0 }]);
    expect(forced.vector.has('filtro') && forced.vector.has('filtri')).toBe(true);
    const own = buildProfile(
      PARAGRAPHS.it.map((text) => ({ text, lang: 'it' })),
      { lang: 'en' },
    );
    expect(own.languages).toEqual([{ lang: 'it', documents: 8, undetected: 0 }]);
    expect(own.vector.toJSON()).toEqual(buildProfile(docsOf('it')).vector.toJSON());
    expect(analyze('Il filtro e i filtri', { lang: 'it' })).toEqual(['filtr', 'filtr']);
    expect(analyze('Il filtro e i filtri', { lang: 'en' })).toEqual(['filtro', 'filtri']);
  });

  it('a document too short to detect takes the collection’s most common language, then English', () => {
    expect(detectLanguage('Filtri rotti')).toBeUndefined();
    const short = { text: 'Filtri rotti' };
    const withItalian = buildProfile([...docsOf('it').slice(0, 3), short]);
    expect(withItalian.languages).toEqual([{ lang: 'it', documents: 4, undetected: 1 }]);
    // Italian analysis of the short document: filtri joins filtro.
    expect(withItalian.vector.has('filtri')).toBe(false);
    expect(withItalian.vector.has('rott')).toBe(true);

    // The most common among the others, counting documents with a lang field too.
    const mostly = buildProfile([
      ...PARAGRAPHS.es.slice(0, 2).map((text) => ({ text, lang: 'es' })),
      { text: PARAGRAPHS.fr[0] },
      short,
    ]);
    expect(mostly.languages).toEqual([
      { lang: 'es', documents: 3, undetected: 1 },
      { lang: 'fr', documents: 1, undetected: 0 },
    ]);

    const alone = buildProfile([short]);
    expect(alone.languages).toEqual([{ lang: 'en', documents: 1, undetected: 1 }]);
    expect(Object.fromEntries(alone.vector.weights)).toEqual({ filtri: 2, rotti: 2 });
    expect(analyze('Filtri rotti')).toEqual(['filtri', 'rotti']);
  });

  it('splits elided articles from their noun, and keeps a stop word that has an apostrophe whole', () => {
    expect(analyze("dell'acquario l’acquario", { lang: 'it' })).toEqual(['acquar', 'acquar']);
    expect(analyze("l'étoile d'aujourd'hui", { lang: 'fr' })).toEqual(['étoil']);
  });

  it('keeps unstemmed lower-case tokens for a language without a stemmer', () => {
    expect(STEMMED_LANGUAGES).not.toContain('pl');
    const words = ['lubię', 'czytać', 'stare', 'książki', 'historii', 'krakowa'];
    expect(analyze('Lubię czytać STARE książki o historii Krakowa', { lang: 'pl' })).toEqual(
      words.filter((w) => !stopwordsFor('pl').has(w)),
    );
  });

  it('has a stemmer for every listed language, each a valid ISO 639-1 code', () => {
    expect(Object.keys(STEMMERS).sort()).toEqual([...STEMMED_LANGUAGES]);
    expect(STEMMED_LANGUAGES.every(isLanguageCode)).toBe(true);
    expect(['xx', 'IT', 'it-IT', 'ita', '', 'auto', 'constructor'].some(isLanguageCode)).toBe(
      false,
    );
  });

  it('rejects a bad language with an error naming the field', () => {
    expect(() => buildProfile(docsOf('it'), { lang: 'italian' })).toThrow(
      /^lang: must be "auto" or an ISO 639-1 language code/,
    );
    expect(() => buildProfile([{ text: 'x y z', lang: 'xx' }])).toThrow(ProfileError);
    expect(() => buildProfile([{ text: 'a' }, { text: 'b', lang: 'IT' }])).toThrow(
      /^documents\[1\]\.lang: must be an ISO 639-1 language code/,
    );
    expect(() => analyze('testo', { lang: 'xx' })).toThrow(/^lang: /);
    expect(() => parseDocument({ text: 'x', lang: 'ita' }, 'docs.jsonl:7')).toThrow(
      /^docs\.jsonl:7: lang: must be an ISO 639-1 language code/,
    );
    expect(() => parseDocument({ text: 'x', lang: 3 }, 'docs.jsonl:8')).toThrow(
      /^docs\.jsonl:8: lang: /,
    );
    expect(parseDocument({ text: 'x', lang: 'de' }, 'docs.jsonl:9')).toEqual({
      text: 'x',
      lang: 'de',
    });
  });
});
