/** An element of the page by id (the page's HTML declares every one the modules use). */
export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

import { showNumber } from './numbers';

/**
 * One term and its definition, for the summary's and the details' `<dl>`; a number is rounded
 * for reading, its exact value on hover.
 */
export function field(label: string, value: string | number): HTMLElement {
  const row = document.createElement('div');
  const term = document.createElement('dt');
  term.textContent = label;
  const definition = document.createElement('dd');
  if (typeof value === 'number') showNumber(definition, value);
  else definition.textContent = value;
  row.append(term, definition);
  return row;
}

/** Saves `content` as a file through the browser's download. */
export function download(name: string, type: string, content: string | Blob): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(content instanceof Blob ? content : new Blob([content], { type }));
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}
