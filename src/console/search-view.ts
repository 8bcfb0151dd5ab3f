/** Search: a profile in, the most similar communities out, with similarity bars and contacts. */
import type { CidxClient, CommunityMatch } from '../client/index.ts';
import { byId, h, idCode, similarityBar, status } from './dom.ts';
import { profileInput } from './profile-input.ts';

export function setUpSearch(client: () => CidxClient, explain: (err: unknown) => string): void {
  const form = byId<HTMLFormElement>('search-form');
  const input = profileInput(form.querySelector('.profile-input') as HTMLElement, 'search');
  const k = byId<HTMLInputElement>('search-k');
  const line = byId('search-status');
  const list = byId('results');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    let profile: Awaited<ReturnType<typeof input.read>>;
    try {
      profile = await input.read();
    } catch (err) {
      status(line, (err as Error).message, true);
      input.focus();
      return;
    }
    const button = form.querySelector('button[type=submit]') as HTMLButtonElement;
    button.disabled = true;
    status(line, 'searching…');
    try {
      const { results } = await client().communitySearch({ profile, k: k.valueAsNumber });
      const best = results[0]?.similarity ?? 1;
      list.replaceChildren(...results.map((r) => resultItem(r, best)));
      status(
        line,
        results.length === 0
          ? 'no community found'
          : `${results.length} ${results.length === 1 ? 'community' : 'communities'} found`,
      );
    } catch (err) {
      status(line, explain(err), true);
    } finally {
      button.disabled = false;
    }
  });
}

function resultItem(r: CommunityMatch, best: number): HTMLElement {
  return h(
    'li',
    { class: 'result', 'data-id': r.id },
    idCode(r.id),
    similarityBar(r.similarity, best),
    h('span', { class: 'version' }, `version ${r.version}`),
    r.contacts.length === 0
      ? h('p', { class: 'contacts' }, 'no contacts')
      : h(
          'details',
          { class: 'contacts' },
          h('summary', {}, `${r.contacts.length} contact${r.contacts.length === 1 ? '' : 's'}`),
          h('ul', {}, ...r.contacts.map((c) => h('li', {}, h('code', {}, c)))),
        ),
  );
}
