import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import { ERROR_STATUS } from '../../lib/api/errors';
import { serializeOpenApiDocument } from '../../lib/api/openapi';
import {
  AnalyzeResponseSchema,
  ErrorBodySchema,
  TickResponseSchema,
  TicksResponseSchema,
} from '../../lib/api/schemas';
import { DEFAULT_LIMITS } from '../../lib/config/limits';
import { analyze } from '../../lib/engine';
import { routeKeys } from '../../lib/http/routes';
import { WORKED_EXAMPLE } from '../../lib/worked-example';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON.
type Json = any;

const doc: Json = JSON.parse(serializeOpenApiDocument());
const engine: Json = doc.paths['/api/engine'].post;

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

  it('offers both body formats, and a stored system, as oneOf', () => {
    expect(engine.requestBody.content['application/json'].schema).toEqual({
      oneOf: [
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
      expect(ref).toMatch(/^#\/components\/schemas\/\w+$/);
      expect(doc.components.schemas[ref.split('/').pop()!], ref).toBeDefined();
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

  // The scenario examples: requests the service takes, and the answer it really gives.
  it('shows scenarios and compare, with the answer the service gives', () => {
    const requests = engine.requestBody.content['application/json'].examples;
    expect(requests.whatIfCapacity.value.scenario).toEqual({ nodes: { B: { capacity: 2 } } });
    const whatIf = engine.responses['200'].content['application/json'].examples.whatIf.value;
    expect(whatIf).toEqual(
      JSON.parse(renderEngineResponse(parseEngineRequest(requests.whatIfArrivals.value, DEFAULT_LIMITS))),
    );
    expect(AnalyzeResponseSchema.safeParse(whatIf).success).toBe(true);
    expect(whatIf.changes.headroom).toEqual({
      before: { scale: 0.75, node: 'B' },
      after: { scale: 0.375, node: 'B' },
    });
    const errors = engine.responses['500'].content['application/json'].examples;
    expect(errors.PAYLOAD_ERROR_scenario.value.error.message).toBe(
      'scenario.nodes.B.capacity: must be a finite number > 0 or null, got the string "x"',
    );
    expect(doc.components.schemas.Scenario.additionalProperties).toBe(false);
    expect(doc.components.schemas.Changes.properties.pressure.type).toBe('array');
  });

  it("documents every status of the contract with the contract's error codes", () => {
    const expected: Record<string, string[]> = {
      '400': ['INVALID_MODE', 'INVALID_TICKS'],
      '401': ['MISSING_API_KEY'],
      '403': ['INVALID_API_KEY'],
      '404': ['SYSTEM_NOT_FOUND'],
      '413': ['LIMIT_EXCEEDED'],
      '415': ['UNSUPPORTED_CONTENT_ENCODING'],
      '500': ['PAYLOAD_ERROR', 'ENGINE_ERROR'],
      '503': ['SERVICE_UNAVAILABLE'],
    };
    expect(Object.keys(engine.responses).sort()).toEqual(['200', ...Object.keys(expected)]);
    for (const [status, codes] of Object.entries(expected)) {
      const content = engine.responses[status].content['application/json'];
      expect(content.schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
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

  it('shows the messages the parser really produces', () => {
    const examples = engine.responses['500'].content['application/json'].examples;
    expect(examples.PAYLOAD_ERROR_element.value.error.message).toBe('dependencies[3].to: unknown node "Z"');
  });
});
