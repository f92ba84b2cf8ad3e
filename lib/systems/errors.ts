/** The inputs a store call checks; `SystemInputError.field` is one of these. */
export type SystemInputField = 'owner' | 'name' | 'url' | 'structure' | 'limit' | 'cursor';

/**
 * A store call's argument breaks its rule; `field` names which, so a route can answer 400 (or
 * 413 for `structure` too large to store). The message never repeats the value: it may be long,
 * or typed by somebody else.
 */
export class SystemInputError extends Error {
  override readonly name = 'SystemInputError';
  readonly field: SystemInputField;

  constructor(field: SystemInputField, message: string) {
    super(message);
    this.field = field;
  }
}

/** A replace lost a race: the system was deleted or replaced since it was read. Nothing of it was kept. */
export class SystemChangedError extends Error {
  override readonly name = 'SystemChangedError';
}

/** A settings write made on a condition (`If-Match`) found other settings: nothing was written. */
export class SettingsChangedError extends Error {
  override readonly name = 'SettingsChangedError';
}

/**
 * What is stored does not add up (a chunk missing or altered, an item edited by hand). Never the
 * caller's fault and never answered with data: a route should log it and answer 500.
 */
export class SystemStorageError extends Error {
  override readonly name = 'SystemStorageError';
}
