/** `engine` → `Engine`: construct ids built from function names. */
export function constructIdOf(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
