import type { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../../lib/storage/table';

export interface ServiceTableProps {
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
}

/**
 * The service's single table, with the key schema `lib/storage/table.ts` gives the local
 * table. No index: every read is by key or a Query on one partition (see PARTITION_PREFIXES).
 */
export class ServiceTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: ServiceTableProps) {
    super(scope, id);
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partitionKey.name, type: attributeType(TABLE_KEYS.partitionKey.type) },
      sortKey: { name: TABLE_KEYS.sortKey.name, type: attributeType(TABLE_KEYS.sortKey.type) },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });
  }
}

function attributeType(type: 'S' | 'N' | 'B'): AttributeType {
  return { S: AttributeType.STRING, N: AttributeType.NUMBER, B: AttributeType.BINARY }[type];
}
