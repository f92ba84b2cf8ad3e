/**
 * Numbers as the page shows them: rounded for reading (four significant digits, whole numbers from
 * 1,000 on), with the exact value the answer holds kept for hover and exports.
 */
export function shortNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en');
  return String(Number(value.toPrecision(4)));
}

/** A number's text for reading, its exact value as the element's hover text when they differ. */
export function showNumber(element: HTMLElement, value: number): void {
  element.textContent = shortNumber(value);
  if (element.textContent !== String(value)) element.title = String(value);
}
