/**
 * Rules for text the service stores, written once: an owner (a token `sub`, an API key's
 * owner) names the same user everywhere, and a display name never carries control characters.
 */

/** 1-128 characters from `A-Z a-z 0-9 . _ @ : + -`; no `#`, so an owner cannot reach another key prefix. */
export const OWNER_SHAPE = /^[A-Za-z0-9._@:+-]{1,128}$/;
export const OWNER_RULE = '1-128 characters from A-Z a-z 0-9 . _ @ : + -';

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
