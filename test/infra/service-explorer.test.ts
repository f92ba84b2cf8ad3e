import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PAGE_CONTENT_SECURITY_POLICY } from '../../explorer/page-headers';
import { resourcesOf, synthesizeStack } from './synth';

const { app, stack, template } = synthesizeStack();
const resources = resourcesOf(template);
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

/** CloudFront's managed policies, by their documented ids. */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

describe('the explorer bucket', () => {
  it('is private, encrypted and refuses plain HTTP', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  // Only the distribution reads it, through origin access control (signed requests).
  it('is read by CloudFront through origin access control, for this distribution only', () => {
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
      }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Action: 's3:GetObject',
            Condition: { StringEquals: { 'AWS:SourceArn': Match.anyValue() } },
          }),
        ]),
      },
    });
  });

  it('holds the built page: HTML, CSS, the page script, the engine worker and their chunks', () => {
    const files = readdirSync(path.join(app.outdir, 'explorer-site')).sort();
    for (const name of ['engine-worker.js', 'explorer.css', 'explorer.js', 'index.html']) {
      expect(files).toContain(name);
    }
    // The WebGL view and the code the page and its worker share are chunks of their own.
    expect(files.some((name) => /^large-graph-\w+\.js$/.test(name))).toBe(true);
    expect(files.every((name) => /^[\w-]+\.(js|css|html)$/.test(name))).toBe(true);
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DistributionPaths: ['/*'],
      RetainOnDelete: true,
      // Browsers ask again for the files that keep their names (a 304 when unchanged): an old
      // page script never names chunks a deploy removed.
      SystemMetadata: { 'cache-control': 'no-cache' },
    });
  });
});

describe('the distribution', () => {
  const distribution = () => ofType('AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig;

  it('serves the page over HTTPS, index.html at /, with the page headers', () => {
    const config = distribution();
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.HttpVersion).toBe('http2and3');
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: { ContentSecurityPolicy: PAGE_CONTENT_SECURITY_POLICY, Override: true },
          ContentTypeOptions: { Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
        }),
      }),
    });
  });

  // The page calls /api/engine on its own origin: no CORS, nothing cached, the caller's
  // Authorization and every other header but Host passed to API Gateway.
  it('sends /api/* to the HTTP API, uncached, every method, viewer headers but Host', () => {
    const config = distribution();
    const api = config.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/*');
    expect(api).toBeDefined();
    expect(api.CachePolicyId).toBe(CACHING_DISABLED);
    expect(api.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
    expect(api.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'POST', 'OPTIONS', 'DELETE']));
    expect(api.ViewerProtocolPolicy).toBe('https-only');
    const origin = config.Origins.find((o: { Id: string }) => o.Id === api.TargetOriginId);
    expect(JSON.stringify(stack.resolve(origin.DomainName))).toContain('execute-api');
    expect(origin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    // The API's answers get the page's HSTS (includeSubDomains: a weaker one there would undo the
    // page's) and nosniff, nothing that would override its own headers.
    const [apiHeadersId, apiHeaders] = ofType('AWS::CloudFront::ResponseHeadersPolicy').find(([id]) =>
      id.includes('ApiHeaders'),
    )!;
    expect(stack.resolve(api.ResponseHeadersPolicyId)).toEqual({ Ref: apiHeadersId });
    expect(apiHeaders.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig).toEqual({
      ContentTypeOptions: { Override: true },
      StrictTransportSecurity: {
        AccessControlMaxAgeSec: 31_536_000,
        IncludeSubdomains: true,
        Override: true,
      },
    });
  });

  // CloudFront keeps an error answer of a GET for 10 s by default, whatever the cache policy and
  // the answer's no-store, under a key without the caller's Authorization: none is kept.
  it("keeps no error answer, so one caller's 503 is never served to the next", () => {
    const kept = distribution().CustomErrorResponses as Array<{
      ErrorCode: number;
      ErrorCachingMinTTL: number;
    }>;
    expect(kept.map((response) => response.ErrorCode).sort()).toEqual([
      400, 403, 404, 405, 414, 416, 500, 501, 502, 503, 504,
    ]);
    for (const response of kept) {
      expect(response.ErrorCachingMinTTL).toBe(0);
      expect(response).not.toHaveProperty('ResponsePagePath');
    }
  });

  it('is given as the ExplorerUrl output', () => {
    template.hasOutput('ExplorerUrl', { Value: Match.anyValue() });
  });
});
