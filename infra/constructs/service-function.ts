import { join } from 'node:path';
import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Function as LambdaFunction, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTIONS, type FunctionName } from '../../lib/http/routes';
import { SERVICE_NAME } from '../../lib/logging';
import {
  type AwsSdkPlacement,
  FUNCTION_FILES,
  FUNCTION_SIZING,
  TABLE_ACCESS,
  type TableAccess,
} from '../functions';
import { PROJECT_ROOT } from '../project';
import { bundledFunctionProps } from './function-code';

export interface ServiceFunctionProps {
  readonly name: FunctionName;
  readonly table: ITableV2;
  readonly environment: Readonly<Record<string, string>>;
  readonly logLevel: string;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly awsSdk?: AwsSdkPlacement;
  /** Concurrent executions reserved for, and capping, the function; none when absent. */
  readonly reservedConcurrency?: number;
  /** X-Ray active tracing, with the Powertools tracer around the DynamoDB client and the outbound fetch. */
  readonly tracing?: boolean;
}

/**
 * One function of the route table: bundled from its entry with esbuild (./function-code.ts), its
 * own log group and a role that may write to that log group and make exactly the table calls
 * `TABLE_ACCESS` lists.
 */
export class ServiceFunction extends Construct {
  readonly function: LambdaFunction;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const sizing = FUNCTION_SIZING[props.name];

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    // A role of its own instead of AWSLambdaBasicExecutionRole, whose log rights span every log group.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `The ${props.name} function: its own log group and its table calls`,
    });
    role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    for (const access of TABLE_ACCESS[props.name]) {
      role.addToPolicy(
        new PolicyStatement({
          actions: [...access.actions],
          resources: [props.table.tableArn],
          conditions: tableConditions(access),
        }),
      );
    }
    const tracing = props.tracing === true;
    this.function = new LambdaFunction(this, 'Function', {
      ...bundledFunctionProps(
        join(PROJECT_ROOT, FUNCTIONS[props.name].entry),
        props.awsSdk,
        tracing,
        FUNCTION_FILES[props.name],
      ),
      ...(tracing ? { tracing: Tracing.ACTIVE } : {}),
      memorySize: sizing.memoryMb,
      timeout: sizing.timeout,
      role,
      logGroup: this.logGroup,
      ...(props.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrency }),
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        LOG_LEVEL: props.logLevel,
        POWERTOOLS_TRACE_ENABLED: String(tracing),
        ...props.environment,
      },
      description: `System Behavior Engine: the ${props.name} function`,
    });
    if (tracing) {
      // Lambda's X-Ray permissions (PutTraceSegments, PutTelemetryRecords) have no resource level.
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'X-Ray PutTraceSegments and PutTelemetryRecords take no resource: "*" is the only resource they accept.',
      });
    }
  }
}

/**
 * The conditions of one `TABLE_ACCESS` entry. `ForAllValues` holds vacuously when a request
 * carries no leading key at all, so `Null: false` requires one; an attribute list also requires
 * that the call returns no item (`ReturnValues` NONE), or it could read what it may not write.
 * @internal test/infra/service-stack.test.ts expects exactly these conditions on each table statement.
 */
export function tableConditions(access: TableAccess): Record<string, Record<string, unknown>> {
  return {
    'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${access.partition}*`] },
    Null: { 'dynamodb:LeadingKeys': 'false' },
    ...(access.attributes === undefined
      ? {}
      : {
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...access.attributes] },
          StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
        }),
  };
}
