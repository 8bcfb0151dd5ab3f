/** The communities this node owns: create, update (a new profile) and dissolve. */
import type { CidxClient } from '../client/index.ts';
import { byId, h, idCode, status } from './dom.ts';
import { profileInput } from './profile-input.ts';

export interface Communities {
  refresh(): Promise<void>;
}

export function setUpCommunities(
  client: () => CidxClient,
  explain: (err: unknown) => string,
  changed: () => void,
): Communities {
  const form = byId<HTMLFormElement>('create-form');
  const input = profileInput(form.querySelector('.profile-input') as HTMLElement, 'create');
  const line = byId('owned-status');
  const list = byId('owned');

  /** Runs one change with the button disabled and the outcome on the status line. */
  const run = async (button: HTMLButtonElement, doing: string, fn: () => Promise<string>) => {
    button.disabled = true;
    status(line, doing);
    try {
      status(line, await fn());
      await refresh();
      changed();
    } catch (err) {
      status(line, explain(err), true);
    } finally {
      button.disabled = false;
    }
  };

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
    void run(button, 'creating…', async () => {
      const r = await client().communityCreate({ profile });
      return `created ${r.id.slice(0, 8)}…; ${r.similar.length} similar, ${r.notified} notified`;
    });
  });

  const item = (id: string, version: number | undefined): HTMLElement => {
    const li = h('li', { class: 'owned', 'data-id': id });
    const editId = `edit-${id}`;
    const update = h('button', { type: 'button', 'aria-controls': editId }, 'Update');
    const dissolve = h('button', { type: 'button', class: 'danger' }, 'Dissolve');
    update.setAttribute('aria-label', `Update community ${id.slice(0, 8)}`);
    dissolve.setAttribute('aria-label', `Dissolve community ${id.slice(0, 8)}`);
    const editor = h('form', { id: editId, class: 'edit', hidden: true });
    li.append(idCode(id), h('span', { class: 'version' }, `version ${version ?? '?'}`));
    li.append(update, dissolve, editor);
    update.addEventListener('click', async () => {
      if (!editor.hidden) {
        editor.hidden = true;
        update.setAttribute('aria-expanded', 'false');
        return;
      }
      const holder = h('div', { class: 'profile-input' });
      const save = h('button', { type: 'submit' }, 'Save new profile');
      editor.replaceChildren(holder, save);
      const edit = profileInput(holder, editId);
      try {
        edit.set((await client().communityGet({ id })).profile);
      } catch (err) {
        status(line, explain(err), true);
      }
      editor.hidden = false;
      update.setAttribute('aria-expanded', 'true');
      edit.focus();
      editor.onsubmit = async (e) => {
        e.preventDefault();
        let profile: Awaited<ReturnType<typeof edit.read>>;
        try {
          profile = await edit.read();
        } catch (err) {
          status(line, (err as Error).message, true);
          return;
        }
        void run(save, 'updating…', async () => {
          const r = await client().communityUpdate({ id, profile });
          return `updated ${id.slice(0, 8)}… to version ${r.version}`;
        });
      };
    });
    dissolve.addEventListener('click', () => {
      if (!window.confirm(`Dissolve community ${id.slice(0, 8)}…? This cannot be undone.`)) return;
      void run(dissolve, 'dissolving…', async () => {
        await client().communityDissolve({ id });
        return `dissolved ${id.slice(0, 8)}…`;
      });
    });
    return li;
  };

  async function refresh(): Promise<void> {
    const { communities } = await client().communityList();
    list.replaceChildren(...communities.map((c) => item(c.id, c.version)));
    if (communities.length === 0) list.append(h('li', { class: 'empty' }, 'none yet'));
  }
  return { refresh };
}
