/**
 * A `Vary` header with `field` added to what it lists (RFC 9110 §12.5.5), each field once
 * whatever its case: `Accept-Encoding` and `Origin` are each added by the step that makes the
 * answer depend on them.
 */
export function withVary(existing: unknown, field: string): string {
  const fields =
    typeof existing === 'string'
      ? existing
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '')
      : [];
  if (!fields.some((name) => name.toLowerCase() === field.toLowerCase())) fields.push(field);
  return fields.join(', ');
}
