/**
 * Backstage software catalog entities, as the catalog API serves them: a bare array
 * (`GET /entities`), `{ items, totalItems, pageInfo }` (`GET /entities/by-query`; `items` may
 * hold `null` for a ref `by-refs` did not find), or a single entity (`GET /entities/by-name/…`).
 *
 * Detection: the first entity (the document itself, the first array element, or the first
 * element of `items` that is not null) is an object with a string `kind` and a `metadata`
 * object; `apiVersion` is not required (the by-query answer may leave it out). An empty `items`
 * is detected only beside `totalItems` or `pageInfo`; an empty bare array is not (it has no
 * shape). An object with `nodes` never is (the engine's own format, node-link).
 *
 * Mapping:
 * - **Node ids** are entity refs in Backstage's canonical form `kind:namespace/name`, lower-case
 *   as Backstage compares them (`Component` `artist-lookup` → `component:default/artist-lookup`).
 *   An entity needs a non-empty `kind` and `metadata.name`; `metadata.namespace` defaults to
 *   `default`. Two entities with the same ref are refused (the second is named).
 * - **Dependencies** come from `spec.dependsOn` (this entity → each ref) and `spec.dependencyOf`
 *   (each ref → this entity), and from `relations[]` of type `dependsOn` and `dependencyOf`
 *   (the same two directions; the ref in `targetRef`, or in the older
 *   `target: { kind, namespace, name }`). The catalog writes each fact twice (the spec and the
 *   relation it derives, and the inverse relation on the other entity), so a pair is one
 *   dependency however often it is stated. Other relation types (`ownedBy`, `partOf`,
 *   `apiConsumedBy`, …) are not dependencies and are left out.
 * - **Refs** are parsed as Backstage does, `[<kind>:][<namespace>/]<name>` (or `{ kind?,
 *   namespace?, name }`), and `{ <kind>: "[<namespace>/]<name>" }` is read as the string
 *   `<kind>:[<namespace>/]<name>`: YAML makes that object of `- component: auth-service` (a
 *   space after the colon), an easy slip in a catalog file. A ref without a namespace takes the
 *   referring entity's namespace (the catalog's rule for `dependsOn`); a ref without a kind is
 *   read as a `component` (the catalog itself refuses such a `dependsOn`; a component is what
 *   one usually means), with a warning. A malformed ref is named by its path, with the keys it
 *   has (never a field it lacks).
 * - **An entity that is not in the document** (a dependency on a resource from another page or
 *   filter) becomes a node of its own, after the document's entities, with `kind`, `name` and
 *   `external: true` (so no default capacity reaches it: `applySettings`), and a warning; it is
 *   not an error.
 * - **Fields kept** on a node: `kind` and `name` as written, `metadata.title` as `title`, and
 *   `spec.type`, `spec.lifecycle`, `spec.owner`, `spec.system` as `type`, `lifecycle`, `owner`,
 *   `system`, where given. None is a name the engine owns.
 * - **No traffic.** A catalog says what depends on what, not how much: every dependency keeps
 *   the engine's default weight 1, no node gets an arrival or fan-out, and the unit is `none`;
 *   the first warning says there is nothing to analyze until arrivals are set.
 */
import type { DependencyInput, NodeInput } from '../engine/types';
import { NO_TRAFFIC_WARNING } from './no-traffic';
import { describeValue, isRecord, memberPath, plural, quote } from './text';
import { FormatError, type GraphFormat } from './types';

/** The relation types that are dependencies, and whether the relation points from the dependent. */
const DEPENDENCY_RELATIONS: ReadonlyMap<string, boolean> = new Map([
  ['dependsOn', true],
  ['dependencyOf', false],
]);

/** `spec` fields the catalog turns into those relations. */
const DEPENDENCY_SPEC_FIELDS = [
  ['dependsOn', true],
  ['dependencyOf', false],
] as const;

/** `spec` fields kept on a node, under the same name. */
const KEPT_SPEC_FIELDS = ['type', 'lifecycle', 'owner', 'system'] as const;

export const backstage: GraphFormat = {
  name: 'backstage',
  detect(document) {
    try {
      if (Array.isArray(document)) return isEntity(document[0]);
      if (!isRecord(document) || Object.hasOwn(document, 'nodes')) return false;
      if (Object.hasOwn(document, 'items')) {
        if (!Array.isArray(document.items)) return false;
        const first = document.items.find((item) => item !== null);
        if (first !== undefined) return isEntity(first);
        return (
          document.items.length === 0 &&
          (isRecord(document.pageInfo) || typeof document.totalItems === 'number')
        );
      }
      return isEntity(document);
    } catch {
      // A hostile getter or proxy (never parsed JSON): not this format.
      return false;
    }
  },
  toStructure(document) {
    const warnings: string[] = [];
    let entities: readonly unknown[];
    let pathOf: (i: number) => string;
    let skipNulls = false;
    if (Array.isArray(document)) {
      entities = document;
      pathOf = (i) => `[${i}]`;
    } else if (isRecord(document) && Object.hasOwn(document, 'items')) {
      if (!Array.isArray(document.items)) {
        throw new FormatError('items', `must be an array of entities, got ${describeValue(document.items)}`);
      }
      entities = document.items;
      pathOf = (i) => `items[${i}]`;
      skipNulls = true;
      const missing = entities.filter((item) => item === null).length;
      if (missing > 0) {
        warnings.push(`${plural(missing, 'null item')} in items (refs the catalog did not find) left out`);
      }
    } else if (isRecord(document)) {
      entities = [document];
      pathOf = () => '';
    } else {
      throw new FormatError(
        '',
        `must be a catalog entity, an array of entities or { "items": [...] }, got ${describeValue(document)}`,
      );
    }

    // First every entity of the document, so a dependency on a later one is not an external.
    const read: ReadEntity[] = [];
    const firstAt = new Map<string, string>();
    entities.forEach((entity, i) => {
      if (entity === null && skipNulls) return;
      const entry = readEntity(entity, pathOf(i));
      const first = firstAt.get(entry.ref);
      if (first !== undefined) {
        throw new FormatError(
          at(entry.path, 'metadata.name'),
          `duplicate entity ${quote(entry.ref)} (first at ${first})`,
        );
      }
      firstAt.set(entry.ref, entry.path);
      read.push(entry);
    });

    const nodes: NodeInput[] = read.map((entry) => entry.node);
    const externals = new Map<string, Ref>();
    const seen = new Set<string>();
    const dependencies: DependencyInput[] = [];
    const kindless: string[] = [];
    const add = (self: string, ref: Ref, path: string, fromSelf: boolean) => {
      if (ref.kindless) kindless.push(path);
      const other = refText(ref);
      if (!firstAt.has(other) && !externals.has(other)) externals.set(other, ref);
      const [from, to] = fromSelf ? [self, other] : [other, self];
      const pair = JSON.stringify([from, to]);
      if (seen.has(pair)) return;
      seen.add(pair);
      dependencies.push({ from, to });
    };
    for (const { ref, namespace, spec, relations, path } of read) {
      for (const [field, fromSelf] of DEPENDENCY_SPEC_FIELDS) {
        const refs = spec?.[field];
        if (refs === undefined) continue;
        const refsPath = at(path, `spec.${field}`);
        if (!Array.isArray(refs))
          throw new FormatError(refsPath, `must be an array of entity refs, got ${describeValue(refs)}`);
        refs.forEach((value: unknown, k) => {
          add(ref, parseRef(value, `${refsPath}[${k}]`, namespace), `${refsPath}[${k}]`, fromSelf);
        });
      }
      relations.forEach((relation, k) => {
        const relationPath = `${at(path, 'relations')}[${k}]`;
        if (!isRecord(relation))
          throw new FormatError(relationPath, `must be an object, got ${describeValue(relation)}`);
        const fromSelf =
          typeof relation.type === 'string' ? DEPENDENCY_RELATIONS.get(relation.type) : undefined;
        if (fromSelf === undefined) return;
        const key =
          relation.targetRef === undefined && relation.target !== undefined ? 'target' : 'targetRef';
        const target = parseRef(relation[key], `${relationPath}.${key}`, namespace);
        add(ref, target, `${relationPath}.${key}`, fromSelf);
      });
    }

    for (const [id, ref] of externals) nodes.push({ id, kind: ref.kind, name: ref.name, external: true });
    if (externals.size > 0) {
      const [first] = externals.keys();
      warnings.push(
        `${plural(externals.size, 'entity', 'entities')} named in dependencies ${externals.size === 1 ? 'is' : 'are'} not in the document (first: ${quote(first!)}); each is a node of its own, with external: true`,
      );
    }
    if (kindless.length > 0) {
      warnings.push(
        `${plural(kindless.length, 'entity ref')} without a kind ${kindless.length === 1 ? 'is' : 'are'} read as ${kindless.length === 1 ? 'a component' : 'components'} (first: ${kindless[0]})`,
      );
    }
    return { nodes, dependencies, unit: 'none', warnings: [NO_TRAFFIC_WARNING, ...warnings] };
  },
};

function isEntity(value: unknown): boolean {
  return isRecord(value) && typeof value.kind === 'string' && isRecord(value.metadata);
}

interface ReadEntity {
  ref: string;
  namespace: string;
  node: NodeInput;
  spec: Record<string, unknown> | undefined;
  relations: readonly unknown[];
  path: string;
}

function readEntity(entity: unknown, path: string): ReadEntity {
  if (!isRecord(entity))
    throw new FormatError(path, `must be an entity object, got ${describeValue(entity)}`);
  const kind = nonEmpty(entity.kind, at(path, 'kind'));
  const metadata = entity.metadata;
  if (!isRecord(metadata))
    throw new FormatError(at(path, 'metadata'), `must be an object, got ${describeValue(metadata)}`);
  const name = nonEmpty(metadata.name, at(path, 'metadata.name'));
  const namespace =
    metadata.namespace === undefined
      ? 'default'
      : nonEmpty(metadata.namespace, at(path, 'metadata.namespace'));
  const spec = entity.spec;
  if (spec !== undefined && !isRecord(spec)) {
    throw new FormatError(at(path, 'spec'), `must be an object, got ${describeValue(spec)}`);
  }
  const relations = entity.relations ?? [];
  if (!Array.isArray(relations)) {
    throw new FormatError(at(path, 'relations'), `must be an array, got ${describeValue(relations)}`);
  }
  const ref = refText({ kind, namespace, name });
  const node: NodeInput = { id: ref, kind, name };
  if (metadata.title !== undefined) node.title = metadata.title;
  for (const field of KEPT_SPEC_FIELDS) {
    if (spec?.[field] !== undefined) node[field] = spec[field];
  }
  return { ref, namespace, node, spec, relations, path };
}

interface Ref {
  kind: string;
  namespace: string;
  name: string;
  /** No kind was given: `component` was assumed. */
  kindless: boolean;
}

/** The forms of an entity ref, as a message names them. */
const REF_FORMS =
  '"[<kind>:][<namespace>/]<name>", { kind?, namespace?, name } or { <kind>: "[<namespace>/]<name>" }';

/** The fields of an entity ref's compound form. */
const COMPOUND_FIELDS: ReadonlySet<string> = new Set(['kind', 'namespace', 'name']);

/**
 * Backstage's `parseEntityRef`: `[<kind>:][<namespace>/]<name>`, or `{ kind?, namespace?, name }`;
 * and `{ <kind>: "[<namespace>/]<name>" }`, which is what YAML makes of `- component: auth-service`
 * (a space after the colon), read exactly as the string `component:auth-service`. Errors name
 * the element at fault and only fields it has.
 */
function parseRef(value: unknown, path: string, defaultNamespace: string): Ref {
  let kind: string | undefined;
  let namespace: string | undefined;
  let name: string;
  if (typeof value === 'string') {
    const parts = refParts(value);
    if (parts === undefined)
      throw new FormatError(
        path,
        `must be an entity ref of the form [<kind>:][<namespace>/]<name>, got ${describeValue(value)}`,
      );
    ({ kind, namespace, name } = parts);
  } else if (isRecord(value) && Object.hasOwn(value, 'name')) {
    kind = value.kind === undefined ? undefined : nonEmpty(value.kind, `${path}.kind`);
    namespace = value.namespace === undefined ? undefined : nonEmpty(value.namespace, `${path}.namespace`);
    name = nonEmpty(value.name, `${path}.name`);
  } else if (isRecord(value) && isKindKey(Object.keys(value))) {
    const [key] = Object.keys(value) as [string];
    const rest = value[key];
    const parts = typeof rest === 'string' ? refParts(`${key}:${rest}`) : undefined;
    if (parts === undefined)
      throw new FormatError(
        member(path, key),
        `must be "[<namespace>/]<name>", the ref of a ${quote(key)} (its kind is the key), got ${describeValue(rest)}`,
      );
    ({ kind, namespace, name } = parts);
  } else {
    throw new FormatError(path, `must be an entity ref (${REF_FORMS}), got ${describeRefValue(value)}`);
  }
  return {
    kind: kind ?? 'component',
    namespace: namespace ?? defaultNamespace,
    name,
    kindless: kind === undefined,
  };
}

/** `[<kind>:][<namespace>/]<name>` split, or undefined when a part it has is empty. */
function refParts(text: string): { kind?: string; namespace?: string; name: string } | undefined {
  let colon = text.indexOf(':');
  const slash = text.indexOf('/');
  // A colon after the namespace's slash belongs to the name.
  if (slash !== -1 && slash < colon) colon = -1;
  const kind = colon === -1 ? undefined : text.slice(0, colon);
  const namespace = slash === -1 ? undefined : text.slice(colon + 1, slash);
  const name = text.slice(Math.max(colon + 1, slash + 1));
  if (kind === '' || namespace === '' || name === '') return undefined;
  return { ...(kind === undefined ? {} : { kind }), ...(namespace === undefined ? {} : { namespace }), name };
}

/** One key that can be a kind: not a field of the compound form, no `:` or `/` in it. */
function isKindKey(keys: readonly string[]): boolean {
  return keys.length === 1 && !COMPOUND_FIELDS.has(keys[0]!) && !/[:/]/.test(keys[0]!);
}

/** A value that is no entity ref, in words: an object by the keys it has, not the ones it lacks. */
function describeRefValue(value: unknown): string {
  if (!isRecord(value)) return describeValue(value);
  const keys = Object.keys(value);
  if (keys.length === 0) return 'an empty object';
  const shown = keys.slice(0, 4).map(quote).join(', ');
  const listed = keys.length > 4 ? `${shown}, … (${keys.length} in all)` : shown;
  const compound = keys.some((key) => COMPOUND_FIELDS.has(key));
  return `an object with ${keys.length === 1 ? 'the key' : 'the keys'} ${listed}${compound ? ' and no "name"' : ''}`;
}

/** `path.key`, or `path["odd key"]` for a key that is not a plain name (`memberPath`). */
function member(path: string, key: string): string {
  return memberPath(path, key);
}

/** The canonical ref, lower-case as Backstage's `stringifyEntityRef` writes it. */
function refText(ref: Pick<Ref, 'kind' | 'namespace' | 'name'>): string {
  return `${ref.kind}:${ref.namespace}/${ref.name}`.toLocaleLowerCase('en-US');
}

/** `path.field`, or `field` for the document itself. */
function at(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}

function nonEmpty(value: unknown, path: string): string {
  if (typeof value === 'string' && value.length > 0) return value;
  throw new FormatError(path, `must be a non-empty string, got ${describeValue(value)}`);
}

// ---- Helpers (each format module keeps its own: lib/formats imports nothing but engine types)
