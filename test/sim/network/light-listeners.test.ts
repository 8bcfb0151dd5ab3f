import { describe, expect, it } from 'vitest';
import { LightListeners } from '../../../sim/network/light-listeners.ts';

/** What a simulated connection's listeners keep of EventTarget (sim/network/light-listeners.ts). */
describe('LightListeners', () => {
  const target = {};
  const fire = (l: LightListeners, type: string) => l.dispatch(target, new Event(type));

  it('calls the listeners of a type in the order they were added, with the event and target', () => {
    const l = new LightListeners();
    const seen: string[] = [];
    l.add('message', function (this: unknown, e: Event) {
      expect(this).toBe(target);
      seen.push(`a:${e.type}`);
    });
    l.add('message', { handleEvent: (e: Event) => seen.push(`b:${e.type}`) });
    l.add('close', () => seen.push('c'));
    expect(fire(l, 'message')).toBe(true);
    expect(seen).toEqual(['a:message', 'b:message']);
    expect(l.count('message')).toBe(2);
    expect(l.count('close')).toBe(1);
    expect(l.count('drain')).toBe(0);
  });

  it('adds a listener once per type and capture flag, and removes it by the same', () => {
    const l = new LightListeners();
    let n = 0;
    const f = () => n++;
    l.add('x', f);
    l.add('x', f);
    l.add('x', f, { capture: true });
    expect(l.count('x')).toBe(2);
    fire(l, 'x');
    expect(n).toBe(2);
    l.remove('x', f);
    expect(l.count('x')).toBe(1);
    l.remove('x', f, true);
    expect(l.count('x')).toBe(0);
    fire(l, 'x');
    expect(n).toBe(2);
    l.remove('x', f);
    l.remove('nothing', f);
    l.add('x', null);
    expect(l.count('x')).toBe(0);
  });

  it('runs a once listener once', () => {
    const l = new LightListeners();
    let n = 0;
    l.add('x', () => n++, { once: true });
    fire(l, 'x');
    fire(l, 'x');
    expect(n).toBe(1);
    expect(l.count('x')).toBe(0);
  });

  it('drops a listener when its signal aborts, and never adds one whose signal has', () => {
    const l = new LightListeners();
    const ac = new AbortController();
    let n = 0;
    l.add('x', () => n++, { signal: ac.signal });
    fire(l, 'x');
    ac.abort();
    fire(l, 'x');
    expect(n).toBe(1);
    expect(l.count('x')).toBe(0);
    l.add('x', () => n++, { signal: ac.signal });
    expect(l.count('x')).toBe(0);
  });

  it('skips a listener removed during a dispatch and keeps one added during it for the next', () => {
    const l = new LightListeners();
    const seen: string[] = [];
    const second = () => seen.push('second');
    const late = () => seen.push('late');
    l.add('x', () => {
      seen.push('first');
      l.remove('x', second);
      l.add('x', late);
    });
    l.add('x', second);
    fire(l, 'x');
    expect(seen).toEqual(['first']);
    fire(l, 'x');
    expect(seen).toEqual(['first', 'first', 'late']);
  });

  it('keeps a listener added by the only one of its type for the next event', () => {
    const l = new LightListeners();
    const seen: string[] = [];
    l.add(
      'x',
      () => {
        seen.push('only');
        l.add('x', () => seen.push('added'));
      },
      { once: true },
    );
    fire(l, 'x');
    expect(seen).toEqual(['only']);
    fire(l, 'x');
    expect(seen).toEqual(['only', 'added']);
  });

  it('reports a listener that throws and goes on with the others', () => {
    const errors: unknown[] = [];
    const l = new LightListeners((e) => errors.push(e));
    const seen: string[] = [];
    l.add('x', () => {
      throw new Error('boom');
    });
    l.add('x', () => seen.push('after'));
    expect(fire(l, 'x')).toBe(true);
    expect(seen).toEqual(['after']);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('boom');
  });

  it('says whether a listener prevented the default of a cancelable event', () => {
    const l = new LightListeners();
    l.add('x', (e: Event) => e.preventDefault());
    expect(l.dispatch(target, new Event('x', { cancelable: true }))).toBe(false);
    expect(l.dispatch(target, new Event('y', { cancelable: true }))).toBe(true);
  });
});
