import { describe, expect, it } from 'vitest';
import { analyze, buildProfile, interests, ProfileError, parseProfile } from '../../src/index.ts';

describe('analyze (tokenise, stop words, Porter stemming)', () => {
  it('stems inflections to one root and drops stop words, numbers and punctuation', () => {
    expect(analyze('The user waited; she waits, and is waiting: 2010!')).toEqual([
      'user',
      'wait',
      'wait',
      'wait',
    ]);
    expect(analyze('Connections connected CONNECTING')).toEqual(['connect', 'connect', 'connect']);
  });

  it('handles Unicode letters and curly apostrophes', () => {
    expect(analyze('Città’s opera')).toEqual(['città', 'opera']);
  });
});

describe('buildProfile (thesis §5.2)', () => {
  const docs = [
    { title: 'Heart surgery', keywords: ['cardiology'], text: 'Surgery of the heart valves.' },
    { text: 'Heart valves and lungs.' },
  ];
  // Field weights keywords 3, text 2, title 1; a term weighs by its best field in a document,
  // and by its mean over the 2 documents (0 where absent).
  //   heart:   doc1 text 2 (also title) → 2; doc2 text 2      → (2 + 2) / 2 = 2
  //   surgeri: doc1 text 2                                   → 2 / 2 = 1
  //   valv:    doc1 2, doc2 2                                → 2
  //   cardiolog: doc1 keyword 3                              → 1.5
  //   lung:    doc2 2                                        → 1
  it('weighs terms by their best field and averages over the documents', () => {
    const { vector, distinctTerms } = buildProfile(docs);
    expect(distinctTerms).toBe(5);
    expect(Object.fromEntries(vector.weights)).toEqual({
      heart: 2,
      valv: 2,
      cardiolog: 1.5,
      lung: 1,
      surgeri: 1,
    });
    // Ordered by weight, ties by occurrences (heart 3 × before valv 2 ×; surgeri 2 × before
    // lung 1 ×), then by term.
    expect([...vector.attributes()]).toEqual(['heart', 'valv', 'cardiolog', 'surgeri', 'lung']);
  });

  it('keeps the most used terms when one document makes every weight equal', () => {
    const { vector } = buildProfile([{ text: 'zebra apple zebra mango zebra apple' }], { top: 2 });
    expect([...vector.attributes()]).toEqual(['zebra', 'appl']);
    const tied = buildProfile([{ text: 'mango apple' }], { top: 1 });
    expect([...tied.vector.attributes()]).toEqual(['appl']);
  });

  it('relates co-occurring terms: Rel(a,b) = N_ab · avg(W_a, W_b) / max(N_a, N_b)', () => {
    const { matrix } = buildProfile(docs);
    expect(matrix.isMatrix).toBe(true);
    // heart & valv: together in both documents; N = 2 each → 2 · 2 / 2 = 2
    expect(matrix.relation('heart', 'valv')).toBe(2);
    // heart & lung: together once; N_heart = 2, N_lung = 1 → 1 · 1.5 / 2 = 0.75
    expect(matrix.relation('lung', 'heart')).toBe(0.75);
    // cardiolog & lung never co-occur
    expect(matrix.relation('cardiolog', 'lung')).toBe(0);
    // every relation is between distinct kept terms, each pair once, and the result re-parses
    expect(parseProfile(JSON.parse(JSON.stringify(matrix))).toJSON()).toEqual(matrix.toJSON());
  });

  it('keeps only the top N terms, and relations among them', () => {
    const { vector, matrix } = buildProfile(docs, { top: 2 });
    expect([...vector.attributes()]).toEqual(['heart', 'valv']);
    expect(matrix.relations).toEqual([['heart', 'valv', 2]]);
  });

  it('lets field weights change the ranking', () => {
    const { vector } = buildProfile(docs, { fieldWeights: { keywords: 10, text: 1, title: 1 } });
    expect([...vector.attributes()][0]).toBe('cardiolog');
  });

  it('feeds interests: a matrix built from two unrelated topics splits in two', () => {
    const topicA = 'violin orchestra symphony concerto';
    const topicB = 'football stadium goalkeeper league';
    const many = [
      ...Array.from({ length: 5 }, () => ({ text: topicA })),
      ...Array.from({ length: 5 }, () => ({ text: topicB })),
    ];
    const { matrix } = buildProfile(many);
    const parts = interests(matrix, { minFreq: 0.25, minSize: 3 });
    expect(parts.map((p) => p.size)).toEqual([4, 4]);
  });

  it('rejects empty inputs and bad options with a clear error', () => {
    expect(() => buildProfile([])).toThrow('documents: at least one document is needed');
    expect(() => buildProfile([{ text: 'the and of' }])).toThrow(ProfileError);
    expect(() => buildProfile(docs, { top: 0 })).toThrow('top: must be an integer >= 1');
    expect(() => buildProfile(docs, { fieldWeights: { keywords: 1, text: 0, title: 1 } })).toThrow(
      'fieldWeights.text',
    );
  });
});
