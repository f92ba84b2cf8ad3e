import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../lib/api/errors';
import { serializeOpenApiDocument } from '../../lib/api/openapi';
import {
  AnalyzeResponseSchema,
  DirectRequestSchema,
  ErrorBodySchema,
  TickResponseSchema,
  TicksResponseSchema,
} from '../../lib/api/schemas';
import { analyze } from '../../lib/engine';
import { routeKeys } from '../../lib/http/routes';
import { WORKED_EXAMPLE } from '../../lib/worked-example';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON.
type Json = any;

const doc: Json = JSON.parse(serializeOpenApiDocument());
const engine: Json = doc.paths['/api/engine'].post;
/** A response, or the shared one (`components.responses`) it names. */
const resolved = (response: Json): Json =>
  typeof response.$ref === 'string' ? doc.components.responses[response.$ref.split('/').pop()] : response;

describe('openapi.json', () => {
  it('is the committed copy of the freshly built document (run `npm run openapi` when this fails)', () => {
    const committed = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(serializeOpenApiDocument());
  });

  it('is built the same way every time', () => {
    expect(serializeOpenApiDocument()).toBe(serializeOpenApiDocument());
  });

  it('is written with a 2-space indent and a trailing newline', () => {
    const text = serializeOpenApiDocument();
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')[1]).toBe('  "openapi": "3.1.0",');
  });
});

describe('the document', () => {
  it('is OpenAPI 3.1 with paths and a bearer security scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBeTypeOf('string');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/connect',
      '/api/engine',
      '/api/keys',
      '/api/keys/{id}',
      '/api/openapi.json',
      '/api/systems',
      '/api/systems/{id}',
      '/api/systems/{id}/refresh',
    ]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(engine.security).toEqual([{ apiKey: [] }]);
    // The document itself is public.
    expect(doc.paths['/api/openapi.json'].get.security).toEqual([]);
  });

  // The document and the route table list the same operations, HEAD included.
  it('documents exactly the routes the service serves', () => {
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routeKeys().sort());
  });

  // anyOf, not oneOf: a direct body may also hold a container or a systemId, which are then ignored.
  it('offers both body formats, and a stored system, as anyOf', () => {
    expect(engine.requestBody.content['application/json'].schema).toEqual({
      anyOf: [
        { $ref: '#/components/schemas/DirectRequest' },
        { $ref: '#/components/schemas/NestedRequest' },
        { $ref: '#/components/schemas/SystemRequest' },
      ],
    });
  });

  it('has every $ref pointing at a schema it defines', () => {
    const refs = new Set<string>();
    JSON.stringify(doc, (key, value) => {
      if (key === '$ref') refs.add(value);
      return value;
    });
    expect(refs.size).toBeGreaterThan(10);
    for (const ref of refs) {
      const [, kind, name] = /^#\/components\/(schemas|responses)\/(\w+)$/.exec(ref) ?? [];
      expect(kind, ref).toBeDefined();
      expect(doc.components[kind!][name!], ref).toBeDefined();
    }
  });

  it('uses JSON Schema 2020-12 without per-schema $schema or $id noise', () => {
    for (const schema of Object.values<Json>(doc.components.schemas)) {
      expect(schema.$schema).toBeUndefined();
      expect(schema.$id).toBeUndefined();
    }
    // 2020-12 style: exclusiveMinimum is a number, not a boolean as in OpenAPI 3.0.
    expect(doc.components.schemas.Node.properties.capacity.exclusiveMinimum).toBe(0);
  });

  it('uses the worked example as the request example and its analyze result as a response example', () => {
    expect(engine.requestBody.content['application/json'].examples.analyze.value).toEqual({
      mode: 'analyze',
      ...WORKED_EXAMPLE,
    });
    const ok = engine.responses['200'].content['application/json'].examples;
    expect(ok.analyze.value).toEqual({ mode: 'analyze', engine: analyze(WORKED_EXAMPLE) });
    expect(ok.analyze.value.engine.primaryBlockage).toBe('B');
    expect(AnalyzeResponseSchema.safeParse(ok.analyze.value).success).toBe(true);
    expect(TickResponseSchema.safeParse(ok.tick.value).success).toBe(true);
    expect(TicksResponseSchema.safeParse(ok.ticks.value).success).toBe(true);
  });

  it("documents every status of the contract with the contract's error codes", () => {
    const expected: Record<string, string[]> = {
      '400': ['INVALID_MODE', 'INVALID_TICKS'],
      '401': ['MISSING_API_KEY'],
      '403': ['INVALID_API_KEY'],
      '404': ['SYSTEM_NOT_FOUND'],
      '413': ['LIMIT_EXCEEDED'],
      '415': ['UNSUPPORTED_CONTENT_ENCODING'],
      '500': ['PAYLOAD_ERROR', 'ENGINE_ERROR', 'INTERNAL_ERROR'],
      '503': ['SERVICE_UNAVAILABLE'],
    };
    // 429 and 503 are answered by the gateway or the table's faults, with no example of ours.
    expect(Object.keys(engine.responses)).toEqual(
      expect.arrayContaining(['200', '429', '503', ...Object.keys(expected)]),
    );
    for (const [status, codes] of Object.entries(expected)) {
      const content = resolved(engine.responses[status]).content['application/json'];
      expect(JSON.stringify(content.schema)).toContain('"#/components/schemas/ErrorBody"');
      const shown = new Set<string>();
      for (const { value } of Object.values<Json>(content.examples)) {
        expect(ErrorBodySchema.safeParse(value).success).toBe(true);
        // Each example sits under the status its code really has.
        expect(ERROR_STATUS[value.error.code as keyof typeof ERROR_STATUS]).toBe(Number(status));
        shown.add(value.error.code);
      }
      expect([...shown].sort()).toEqual([...codes].sort());
    }
    expect(engine.responses['401'].headers['WWW-Authenticate']).toBeDefined();
    expect(engine.responses['503'].headers['Retry-After']).toBeDefined();
  });

  // Every operation, HEAD included: the gateway's throttle, an unexpected failure, a table fault.
  it('gives every operation a 4xx, and the 429, 500 and 503 the gateway or the service can answer', () => {
    for (const [path, operations] of Object.entries<Json>(doc.paths)) {
      for (const [method, operation] of Object.entries<Json>(operations)) {
        const statuses = Object.keys(operation.responses);
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['429', '500', '503']));
        expect(
          statuses.some((status) => status.startsWith('4')),
          `${method} ${path}`,
        ).toBe(true);
      }
    }
    const throttled = resolved(engine.responses['429']).content['application/json'];
    expect(throttled.schema).toEqual({ $ref: '#/components/schemas/GatewayMessage' });
    expect(resolved(engine.responses['503']).headers['Retry-After']).toBeDefined();
  });

  // A typed client built from the document must be able to call HEAD with the GET's path id.
  it('gives each HEAD its GET parameters, security and statuses, without bodies', () => {
    for (const [path, operations] of Object.entries<Json>(doc.paths)) {
      if (operations.get === undefined) continue;
      const { get, head } = operations;
      expect(head.parameters, path).toEqual(get.parameters);
      expect(head.security, path).toEqual(get.security);
      expect(Object.keys(head.responses).sort(), path).toEqual(Object.keys(get.responses).sort());
      for (const response of Object.values<Json>(head.responses)) {
        expect(response.$ref).toBeUndefined();
        expect(response.content).toBeUndefined();
      }
      // The headers stay: WWW-Authenticate on a 401, Retry-After on a 503.
      expect(head.responses['503'].headers['Retry-After']).toBeDefined();
    }
    expect(doc.paths['/api/systems/{id}'].head.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  // What lib/api/request-body.ts reads: JSON as JSON or text, or bytes (any other or no type),
  // compressed or not; and a body too large or in an unknown coding.
  it('declares every form of body the service reads, on every operation that takes one', () => {
    const withBodies = Object.values<Json>(doc.paths).flatMap((operations) =>
      Object.values<Json>(operations).filter((operation) => operation.requestBody !== undefined),
    );
    expect(withBodies.map((operation) => operation.operationId).sort()).toEqual([
      'connectSystem',
      'createKey',
      'refreshSystem',
      'registerSystem',
      'runEngine',
      'updateSystemSettings',
    ]);
    for (const operation of withBodies) {
      expect(Object.keys(operation.requestBody.content).sort()).toEqual([
        '*/*',
        'application/json',
        'application/octet-stream',
        'text/plain',
      ]);
      const json = operation.requestBody.content['application/json'].schema;
      expect(operation.requestBody.content['text/plain'].schema.contentSchema).toEqual(json);
      expect(operation.parameters.map((parameter: Json) => parameter.name)).toContain('Content-Encoding');
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['413', '415']));
    }
  });

  it('takes Content-Encoding exactly as the body reader does', () => {
    const { pattern } = engine.parameters.find(
      (parameter: Json) => parameter.name === 'Content-Encoding',
    ).schema;
    const matches = (value: string) => new RegExp(pattern).test(value);
    for (const value of [
      'gzip',
      'GZIP',
      'x-gzip',
      'br',
      'deflate',
      'identity',
      'gzip, br',
      ' deflate ,gzip ',
      '',
    ])
      expect(matches(value), value).toBe(true);
    for (const value of ['zstd', 'compress', 'gzip;q=1', 'gzip br'])
      expect(matches(value), value).toBe(false);
  });

  // The contract reads ticks only in mode ticks; in the others any value is ignored.
  it('constrains ticks only in mode ticks', () => {
    const direct = doc.components.schemas.DirectRequest;
    expect(direct.properties.ticks.$ref).toBeUndefined();
    expect(direct.required).not.toContain('ticks');
    expect(direct.if).toEqual({ required: ['mode'], properties: { mode: { const: 'ticks' } } });
    expect(direct.then).toEqual({ properties: { ticks: { $ref: '#/components/schemas/Ticks' } } });
    expect(DirectRequestSchema.safeParse({ mode: 'analyze', ticks: 'x', ...WORKED_EXAMPLE }).success).toBe(
      true,
    );
    expect(DirectRequestSchema.safeParse({ mode: 'ticks', ticks: 'x', ...WORKED_EXAMPLE }).success).toBe(
      false,
    );
  });

  // z.object drops unknown keys rather than refusing them, so the document allows them.
  it('allows extra properties wherever the service accepts them', () => {
    for (const name of ['CreateKeyRequest', 'ConnectRequest', 'SystemRequest', 'DirectRequest']) {
      expect(doc.components.schemas[name].additionalProperties, name).not.toBe(false);
    }
  });

  it('names a server that works locally and says where the deployed one is, and a license', () => {
    expect(doc.servers[0].url).toBe('http://127.0.0.1:3000');
    expect(doc.servers[0].description).toMatch(/ApiUrl/);
    expect(doc.info.license.name).toBeTypeOf('string');
  });

  it('shows the messages the parser really produces', () => {
    const examples = engine.responses['500'].content['application/json'].examples;
    expect(examples.PAYLOAD_ERROR_element.value.error.message).toBe('dependencies[3].to: unknown node "Z"');
  });
});
