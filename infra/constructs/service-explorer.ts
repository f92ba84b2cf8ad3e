import path from 'node:path';
import { Duration, RemovalPolicy, Stack, Stage, Token, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { writeExplorer } from '../../explorer/build';
import { PAGE_CONTENT_SECURITY_POLICY } from '../../explorer/page-headers';
import type { DomainSettings } from '../settings';

export interface ServiceExplorerProps {
  /** The HTTP API, served under the same distribution at `/api/*` so the page needs no CORS. */
  readonly api: HttpApi;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  /** A custom domain for the distribution (page and `/api/*` alike); CloudFront's own name without. */
  readonly domain?: DomainSettings | undefined;
}

/** The error statuses CloudFront may cache for 10 s by default. */
const UNCACHED_ERRORS = [400, 403, 404, 405, 414, 416, 500, 501, 502, 503, 504];

/**
 * The explorer page: its files in a private S3 bucket, read by CloudFront through origin access
 * control, and the API behind the same distribution under `/api/*` (uncached, every viewer
 * header but Host forwarded), so the page calls `/api/engine` on its own origin.
 */
export class ServiceExplorer extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: ServiceExplorerProps) {
    super(scope, id);
    const throwaway = props.removalPolicy === RemovalPolicy.DESTROY;
    this.bucket = new Bucket(this, 'Site', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds only the public explorer page, rebuilt on every deploy and written by the deployment alone; CloudFront reads it through origin access control, and nothing in it is private or changes outside deploys.',
    });

    const pageHeaders = new ResponseHeadersPolicy(this, 'PageHeaders', {
      comment: 'The explorer page: its own origin only (see explorer/page-headers.ts)',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: PAGE_CONTENT_SECURITY_POLICY, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });
    // The API's answers on the page's name: the page's HSTS (the last one a browser sees wins, so a
    // weaker one on /api/* would undo the page's includeSubDomains) and nosniff; the rest is the
    // API's own (no CSP for JSON, its own Cache-Control and CORS).
    const apiHeaders = new ResponseHeadersPolicy(this, 'ApiHeaders', {
      comment: 'The API under the page name: the page HSTS and nosniff',
      securityHeadersBehavior: {
        contentTypeOptions: { override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });

    const stack = Stack.of(this);
    const apiOrigin = new HttpOrigin(`${props.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
    });
    const domain = props.domain;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'System Behavior Engine explorer and API',
      ...(domain === undefined
        ? {}
        : {
            domainNames: [domain.domainName],
            certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }),
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: pageHeaders,
      },
      additionalBehaviors: {
        '/api/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: apiHeaders,
        },
      },
      // CloudFront keeps an error answer of a GET 10 s by default (400, 403, 405, 414 and 5xx
      // whatever the answer's `no-store`; a 404 only without it), whatever the cache policy, and
      // the cache key holds no `Authorization`: one caller's 503 on `GET /api/systems` would be
      // served to the next for 10 s. None is kept (404 and 416 listed too: nothing relies on
      // `no-store` or on CloudFront's own exceptions).
      errorResponses: UNCACHED_ERRORS.map((httpStatus) => ({ httpStatus, ttl: Duration.seconds(0) })),
    });
    const acknowledged: Array<[string, string]> = [
      [
        'AwsSolutions-CFR1',
        'A public developer tool and API for callers anywhere; no country is to be refused.',
      ],
      [
        'AwsSolutions-CFR2',
        'The API behind /api/* is throttled by API Gateway and authenticates every request; the page is static. A web ACL here alone would guard little: an HTTP API cannot take one, and its execute-api endpoint (ApiUrl) stays reachable beside the distribution. An account that needs one adds it to the distribution and turns that endpoint off itself.',
      ],
      [
        'AwsSolutions-CFR3',
        "API requests are logged by API Gateway's access log; the static page has nothing worth a second log, and standard logging needs a bucket with ACLs enabled.",
      ],
    ];
    if (domain === undefined) {
      acknowledged.push([
        'AwsSolutions-CFR4',
        "The distribution uses CloudFront's default certificate, which cannot pin a minimum TLS version; with domainName and certificateArn it gets its own certificate and TLS 1.2 at least.",
      ]);
    }
    for (const [id, reason] of acknowledged) Validations.of(this.distribution).acknowledge({ id, reason });
    if (domain?.hostedZoneId !== undefined) {
      // The zone holds the domain name; the records' names are given whole (ending in a dot).
      const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
        hostedZoneId: domain.hostedZoneId,
        zoneName: domain.domainName,
      });
      const target = RecordTarget.fromAlias(new CloudFrontTarget(this.distribution));
      const recordName = `${domain.domainName}.`;
      new ARecord(this, 'AliasRecord', { zone, recordName, target });
      new AaaaRecord(this, 'AliasRecordIpv6', { zone, recordName, target });
    }

    // The page's files are built at synth (explorer/build.ts) and copied into the bucket by the
    // CDK's deployment handler, which then invalidates the distribution's cache.
    new BucketDeployment(this, 'Files', {
      sources: [Source.asset(writeExplorer(path.join(Stage.of(this)!.outdir, 'explorer-site')))],
      destinationBucket: this.bucket,
      // The page's entry files keep their names from one deploy to the next: a browser asks
      // again each time (a 304 when unchanged), so it never runs an old page script that names
      // chunks the deploy removed.
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 256,
      // On a throwaway stage, deleting the deployment empties the bucket so it can be deleted.
      retainOnDelete: !throwaway,
      logGroup: new LogGroup(this, 'DeploymentLogs', {
        retention: props.logRetention,
        removalPolicy: props.removalPolicy,
      }),
    });
    acknowledgeDeploymentHandler(Stack.of(this), this.bucket);
  }
}

/**
 * The CDK's own deployment handler (one per stack, shared by every BucketDeployment) runs only
 * while CloudFormation deploys. Its findings are the CDK's design, not ours to change.
 */
/** A stack attribute as cdk-nag spells it in a finding: the value, or `<AWS::…>` while unknown. */
function known(value: string, pseudoParameter: string): string {
  return Token.isUnresolved(value) ? `<AWS::${pseudoParameter}>` : value;
}

function acknowledgeDeploymentHandler(stack: Stack, bucket: Bucket): void {
  const handler = stack.node.children.find((child) =>
    child.node.id.startsWith('Custom::CDKBucketDeployment'),
  );
  if (handler === undefined) return;
  const qualifier = (stack.synthesizer as { bootstrapQualifier?: string }).bootstrapQualifier ?? 'hnb659fds';
  const siteBucket = stack.getLogicalId(bucket.node.defaultChild as CfnBucket);
  const readsAndWrites =
    "The CDK's bucket-deployment handler (deploy time only) reads the staged asset objects and replaces the explorer bucket's objects: object-level wildcards inside those two buckets.";
  const findings: Array<[string, string]> = [
    [
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "The CDK's bucket-deployment handler logs through AWSLambdaBasicExecutionRole; it runs only during deploys.",
    ],
    ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map(
      (action): [string, string] => [`AwsSolutions-IAM5[Action::${action}]`, readsAndWrites],
    ),
    [
      `AwsSolutions-IAM5[Resource::arn:${known(stack.partition, 'Partition')}:s3:::cdk-${qualifier}-assets-${known(stack.account, 'AccountId')}-${known(stack.region, 'Region')}/*]`,
      readsAndWrites,
    ],
    [`AwsSolutions-IAM5[Resource::<${siteBucket}.Arn>/*]`, readsAndWrites],
    [
      'AwsSolutions-IAM5[Resource::*]',
      "The CDK's bucket-deployment handler invalidates the distribution after an upload; the CDK grants the CloudFront invalidation actions on *.",
    ],
    [
      'AwsSolutions-L1',
      "The CDK's bucket-deployment handler runtime is chosen by aws-cdk-lib and moves with it.",
    ],
  ];
  for (const [id, reason] of findings) Validations.of(handler).acknowledge({ id, reason });
}
