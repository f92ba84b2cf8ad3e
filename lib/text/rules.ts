/**
 * Rules for text the service stores, written once: an owner (a token `sub`, an API key's
 * owner) names the same user everywhere, and a display name never carries control characters.
 */

/** 1-128 characters from `A-Z a-z 0-9 . _ @ : + -`; no `#`, so an owner cannot reach another key prefix. */
export const OWNER_SHAPE = /^[A-Za-z0-9._@:+-]{1,128}$/;
export const OWNER_RULE = '1-128 characters from A-Z a-z 0-9 . _ @ : + -';

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** A display name (of an API key, of a system): 1-100 characters once trimmed, no control characters. */
export const NAME_MAX_LENGTH = 100;

/** The longest URL a system may be registered from. */
export const URL_MAX_LENGTH = 2048;

/**
 * Whether `name`, already trimmed, is a display name. Characters are counted as the request
 * schema and JSON Schema's `maxLength` count them, by code point: an emoji is one (two UTF-16
 * units), so a name the schema took is never refused here.
 */
export function isDisplayName(name: string): boolean {
  return name !== '' && codePoints(name) <= NAME_MAX_LENGTH && !CONTROL_CHARACTERS.test(name);
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
