/** A few DOM helpers: elements are built with text nodes only, never from HTML strings. */

type Attrs = Record<string, string | number | boolean | undefined>;
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`#${id} missing from the page`);
  return el as T;
}

/** The first 8 and last 4 characters of a long id; the full one stays in `title`. */
function shortId(id: string): string {
  return id.length > 16 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id;
}

/** An id shown short, readable in full by screen readers and on hover. */
export function idCode(id: string): HTMLElement {
  return h('code', { title: id, 'aria-label': id, 'data-id': id }, shortId(id));
}

/**
 * A similarity as a bar (a meter: screen readers say its value) and its value. Similarities are
 * not bounded by 1 (metric 4.1 grows with the weights), so the bar is relative to `scale`: the
 * best of a result list, or 1.
 */
export function similarityBar(similarity: number, scale: number): HTMLElement {
  const max = Math.max(scale, similarity, Number.MIN_VALUE);
  const value = similarity.toFixed(3);
  return h(
    'span',
    { class: 'sim' },
    h('meter', {
      min: 0,
      max,
      optimum: max,
      value: similarity,
      'aria-label': `similarity ${value}`,
    }),
    h('span', { 'aria-hidden': 'true' }, value),
  );
}

/** Shows a status line; `error` marks it for styling and assertive announcement. */
export function status(el: HTMLElement, text: string, error = false): void {
  el.textContent = text;
  el.classList.toggle('error', error);
  el.setAttribute('aria-live', error ? 'assertive' : 'polite');
}
