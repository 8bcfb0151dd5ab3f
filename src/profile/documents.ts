import { langProblem } from './languages.ts';

/** One document of a user: what the profile builder reads (thesis §5.2: title, keywords, body). */
export interface UserDocument {
  title?: string;
  keywords?: string[];
  text: string;
  /** The document's language, ISO 639-1; absent: the builder's `lang` option decides. */
  lang?: string;
}

/** A document line that breaks the format; the message starts with `source:line`. */
export class DocumentError extends Error {
  constructor(where: string, problem: string) {
    super(`${where}: ${problem}`);
    this.name = 'DocumentError';
  }
}

/**
 * Validates one JSON Lines document `{title?, keywords?, lang?, text}`. `keywords` may be an
 * array of strings or one string of comma- or semicolon-separated keywords; `lang` is an
 * ISO 639-1 code in lower case.
 */
export function parseDocument(value: unknown, where: string): UserDocument {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DocumentError(where, 'must be a JSON object {title?, keywords?, lang?, text}');
  }
  const v = value as Record<string, unknown>;
  if (typeof v.text !== 'string') throw new DocumentError(where, 'text: must be a string');
  const doc: UserDocument = { text: v.text };
  if (v.title !== undefined) {
    if (typeof v.title !== 'string') throw new DocumentError(where, 'title: must be a string');
    doc.title = v.title;
  }
  if (v.keywords !== undefined) {
    if (typeof v.keywords === 'string') {
      doc.keywords = v.keywords.split(/[;,]/).filter((k) => k.trim() !== '');
    } else if (Array.isArray(v.keywords) && v.keywords.every((k) => typeof k === 'string')) {
      doc.keywords = v.keywords;
    } else {
      throw new DocumentError(where, 'keywords: must be a string or an array of strings');
    }
  }
  if (v.lang !== undefined) {
    const problem = langProblem(v.lang, false);
    if (problem !== undefined) throw new DocumentError(where, `lang: ${problem}`);
    doc.lang = v.lang as string;
  }
  return doc;
}

/**
 * Parses JSON Lines text into records, skipping blank lines; errors name `source:line`.
 * Returns each record with its line number so callers can report later problems precisely.
 */
export function parseJsonLines(text: string, source: string): { line: number; value: unknown }[] {
  const out: { line: number; value: unknown }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]?.trim() ?? '';
    if (raw === '') continue;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (err) {
      throw new DocumentError(`${source}:${i + 1}`, `not valid JSON (${(err as Error).message})`);
    }
  }
  return out;
}
