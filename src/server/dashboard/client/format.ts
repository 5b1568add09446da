// Small DOM and number helpers.

/** Creates an element with attributes and children (strings become text nodes, never HTML). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number | boolean | undefined | ((event: Event) => void)> = {},
  ...children: Array<Node | string | number | null | undefined | false>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    );
  }
  return element;
}

/** `0.8123` → `81.2%`; `null` → `n/a`. */
export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`;
}

/** A score or weight with 3 decimals. */
export function fixed(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
}

/** Cost in the team's price unit. */
export function money(value: number): string {
  return value === 0 ? '0' : value < 0.01 ? value.toExponential(2) : value.toFixed(4);
}

/** Milliseconds since the epoch as a local date and time. */
export function when(ms: number): string {
  return new Date(ms).toLocaleString();
}

/** Eight distinguishable colours for chart series. */
export const palette = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#9333ea',
  '#ea580c',
  '#0891b2',
  '#ca8a04',
  '#db2777',
  '#4b5563',
  '#65a30d',
];
