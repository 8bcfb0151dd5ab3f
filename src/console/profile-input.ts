/**
 * A profile field: paste profile JSON, or paste text and let the project's own profile builder
 * (buildProfile, the same code as `cidx profile build`) make a weighted vector of it.
 */
import type { ProfileJSON } from '../client/index.ts';
import { h } from './dom.ts';

/**
 * The profile builder (language detection, every language's stop words and stemmers: ≈ 1 MB) is
 * a file of its own, loaded the first time text is turned into a profile: the console itself
 * stays small. The URL is computed so the bundler leaves the import to the browser.
 */
let builder: Promise<typeof import('./builder.ts')> | undefined;
function loadBuilder(): Promise<typeof import('./builder.ts')> {
  builder ??= import(new URL('builder.js', import.meta.url).href) as Promise<
    typeof import('./builder.ts')
  >;
  return builder;
}

export interface ProfileInput {
  /** The profile to send; throws an Error whose message tells the user what is wrong. */
  read(): Promise<ProfileJSON>;
  set(profile: ProfileJSON): void;
  focus(): void;
}

/** Fills a `.profile-input` placeholder; `name` makes the ids unique on the page. */
export function profileInput(host: HTMLElement, name: string): ProfileInput {
  const jsonId = `${name}-mode-json`;
  const textId = `${name}-mode-text`;
  const areaId = `${name}-profile`;
  const hintId = `${name}-hint`;
  const asJson = h('input', { type: 'radio', name: `${name}-mode`, id: jsonId, checked: true });
  const asText = h('input', { type: 'radio', name: `${name}-mode`, id: textId });
  const label = h('label', { for: areaId }, 'Profile JSON');
  const area = h('textarea', {
    id: areaId,
    rows: 5,
    required: true,
    spellcheck: 'false',
    'aria-describedby': hintId,
  });
  const hint = h('p', { id: hintId, class: 'hint' });
  const built = h('pre', { class: 'built' });
  const builtBox = h('details', { hidden: true }, h('summary', {}, 'Built profile'), built);
  const fieldset = h(
    'fieldset',
    { class: 'mode' },
    h('legend', {}, 'Profile from'),
    asJson,
    h('label', { for: jsonId }, 'JSON'),
    asText,
    h('label', { for: textId }, 'Text'),
  );
  const sync = () => {
    const text = asText.checked;
    label.textContent = text ? 'Text to build a profile from' : 'Profile JSON';
    hint.textContent = text
      ? 'Any text; a blank line separates documents. Terms are stemmed, stop words dropped.'
      : '{"weights": {"Verdi": 1, "opera": 0.8}, "relations": [["Verdi", "opera", 0.5]]}';
  };
  asJson.addEventListener('change', sync);
  asText.addEventListener('change', sync);
  sync();
  host.append(fieldset, label, area, hint, builtBox);

  return {
    async read() {
      const raw = area.value.trim();
      if (raw === '') throw new Error(asText.checked ? 'enter some text' : 'enter a profile');
      if (asText.checked) {
        const docs = raw.split(/\n\s*\n/).map((text) => ({ text }));
        const { buildProfile } = await loadBuilder();
        const profile = buildProfile(docs).vector.toJSON();
        if (Object.keys(profile.weights).length === 0)
          throw new Error('no terms left in the text after stop words');
        built.textContent = JSON.stringify(profile, null, 1);
        builtBox.hidden = false;
        return profile;
      }
      try {
        return JSON.parse(raw) as ProfileJSON;
      } catch (err) {
        throw new Error(`not valid JSON: ${(err as Error).message}`);
      }
    },
    set(profile) {
      asJson.checked = true;
      sync();
      area.value = JSON.stringify(profile);
    },
    focus() {
      area.focus();
    },
  };
}
