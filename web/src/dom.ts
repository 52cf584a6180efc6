/** Small DOM helpers. */

/** The element with this id, typed; a missing one is a bug in index.html. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

/** An element with attributes and children (text or elements). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  el.append(...children);
  return el;
}

/** A labelled checkbox: `<label class="check"><input type="checkbox" value> text</label>`. */
export function checkbox(name: string, value: string, text: string, checked: boolean): HTMLLabelElement {
  const input = h('input', { type: 'checkbox', name, value, checked });
  input.checked = checked;
  return h('label', { class: 'check' }, input, ` ${text}`);
}

/** The values of the checked boxes under `container`, in page order. */
export function checkedValues(container: HTMLElement): string[] {
  return Array.from(container.querySelectorAll<HTMLInputElement>('input[type=checkbox]:checked'), (i) => i.value);
}
