/**
 * TABLE_ACCESS against the calls the code really makes: the key and system stores run, against
 * dynalite, every operation each function's handlers use, and a middleware on the DynamoDB
 * client records each call's action, the partition prefixes it touches, the attributes an
 * UpdateItem writes and the ReturnValues it asks for. Each function's IAM must allow exactly the
 * (action, partition) pairs recorded — a pair the code needs and IAM lacks fails a deployed
 * request; a pair IAM allows and the code never makes is privilege nobody needs.
 */
import { describe, expect, it } from 'vitest';
import { TABLE_ACCESS } from '../../infra/functions';
import { DEFAULT_QUOTAS } from '../../lib/config/quotas';
import type { FunctionName } from '../../lib/http/routes';
import { hashApiKey, issueApiKey } from '../../lib/keys';
import { createOwnerStores } from '../../lib/owners/stores';
import { useFreshTable } from '../helpers/dynalite';

interface Call {
  action: string;
  partitions: string[];
  /** UpdateItem: the attributes its expressions name, keys included. */
  attributes?: string[];
  returnValues?: string;
}

const table = useFreshTable();

/** Runs `work` with every DynamoDB call recorded. */
async function recordCalls(work: (stores: Stores) => Promise<void>): Promise<Call[]> {
  const calls: Call[] = [];
  // The stores talk through the document client: its commands are recorded before marshalling.
  const client = table.doc;
  const name = `record-${Math.random()}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(describeCall(context.commandName ?? '', args.input as Record<string, unknown>));
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await work(storesFor());
  } finally {
    client.middlewareStack.remove(name);
  }
  return calls;
}

type Stores = ReturnType<typeof storesFor>;

/** As functions/connect/handler.ts builds them: counted against the owners' quotas. */
function storesFor() {
  // Tiny chunks, so stored structures take the chunked path (head plus chunk items).
  return createOwnerStores({
    doc: table.doc,
    tableName: table.tableName,
    quotas: DEFAULT_QUOTAS,
    chunkBytes: 64,
  });
}

const STRUCTURE = {
  nodes: Array.from({ length: 40 }, (_, i) => ({ id: `node-${i}`, load: i })),
  dependencies: Array.from({ length: 39 }, (_, i) => ({ from: `node-${i}`, to: `node-${i + 1}` })),
};
const NEW_SYSTEM = { owner: 'alice', name: 'chain', url: 'https://api.example.com/s', structure: STRUCTURE };

/** What each function's handlers ask of the stores (functions/engine, functions/connect). */
const OPERATIONS: Record<FunctionName, (stores: Stores, setup: Setup) => Promise<void>> = {
  // Every request: the key by digest, its lastUsedAt stamp; `{ mode, systemId }`: the record, the structure.
  engine: async ({ keys, systems }, { digest, systemId }) => {
    await keys.getByDigest(digest);
    await keys.touchLastUsed(digest, new Date('2030-01-01T00:00:00.000Z'));
    await systems.getRecord('alice', systemId);
    await systems.get('alice', systemId);
  },
  // Self-service keys (create, list, revoke; a create that fails undoes its index entry) and
  // systems (register, list, read, refresh, settings, delete), each counted on its owner's quota.
  connect: async ({ keys, systems }, { digest }) => {
    const { record } = await issueApiKey(keys, { owner: 'bob', name: 'ci' });
    await keys.put({ ...record, id: 'another-id' }).catch(() => undefined);
    await keys.listByOwner('alice');
    await keys.revoke(digest);
    const created = await systems.create(NEW_SYSTEM);
    await systems.list('alice');
    await systems.get('alice', created.id);
    await systems.replace('alice', created.id, {
      structure: { ...STRUCTURE, nodes: STRUCTURE.nodes.slice() },
    });
    await systems.updateSettings('alice', created.id, { defaultCapacity: 2 });
    await systems.delete('alice', created.id);
  },
};

interface Setup {
  digest: string;
  systemId: string;
}

async function setUp(): Promise<Setup> {
  const { keys, systems } = storesFor();
  const { key } = await issueApiKey(keys, { owner: 'alice', name: 'laptop' });
  const system = await systems.create(NEW_SYSTEM);
  return { digest: hashApiKey(key), systemId: system.id };
}

describe.each(Object.keys(OPERATIONS) as FunctionName[])('the %s function', (name) => {
  it('may make exactly the (action, partition) calls its code makes', async () => {
    const setup = await setUp();
    const calls = await recordCalls((stores) => OPERATIONS[name](stores, setup));
    const made = new Set(
      calls.flatMap((call) => call.partitions.map((prefix) => `${call.action} ${prefix}`)),
    );
    const allowed = new Set(
      TABLE_ACCESS[name].flatMap((access) => access.actions.map((action) => `${action} ${access.partition}`)),
    );
    expect([...made].sort()).toEqual([...allowed].sort());
  });

  it('writes with UpdateItem only the attributes IAM lists, when it lists them', async () => {
    const setup = await setUp();
    const calls = await recordCalls((stores) => OPERATIONS[name](stores, setup));
    for (const call of calls.filter((c) => c.action === 'dynamodb:UpdateItem')) {
      const access = TABLE_ACCESS[name].find(
        (entry) =>
          entry.actions.includes('dynamodb:UpdateItem') &&
          call.partitions.every((p) => p === entry.partition),
      );
      expect(access).toBeDefined();
      if (access?.attributes === undefined) continue;
      expect(call.attributes!.every((attribute) => access.attributes!.includes(attribute))).toBe(true);
      expect(call.returnValues ?? 'NONE').toBe('NONE');
    }
  });
});

// The recorder itself: a call it could not read would make the comparison above meaningless.
it('recognises the partition of every kind of call', async () => {
  const setup = await setUp();
  const calls = await recordCalls(async (stores) => {
    await OPERATIONS.engine(stores, setup);
    await OPERATIONS.connect(stores, setup);
  });
  for (const call of calls) {
    expect(call.action).toMatch(/^dynamodb:[A-Z][A-Za-z]+$/);
    expect(call.partitions.length).toBeGreaterThan(0);
    for (const prefix of call.partitions) expect(prefix).toMatch(/^(APIKEY|OWNER|SYSTEM)#$/);
  }
});

/**
 * `GetItemCommand` → `dynamodb:GetItem`, with the partitions and attributes it touches. The
 * document client's middleware sees the action's own command name and the unmarshalled input.
 */
function describeCall(commandName: string, input: Record<string, unknown>): Call {
  const action = `dynamodb:${commandName.replace(/Command$/, '')}`;
  const partitions = new Set<string>();
  const addKey = (key: unknown) => {
    const pk = (key as { pk?: unknown } | undefined)?.pk;
    if (typeof pk === 'string') partitions.add(prefixOf(pk));
  };
  addKey(input.Key);
  addKey(input.Item);
  const values = input.ExpressionAttributeValues as Record<string, unknown> | undefined;
  const queried = values?.[':pk'];
  if (commandName === 'QueryCommand' && typeof queried === 'string') partitions.add(prefixOf(queried));
  const requestItems = input.RequestItems as Record<string, unknown> | undefined;
  for (const perTable of Object.values(requestItems ?? {})) {
    if (Array.isArray(perTable)) {
      for (const request of perTable as Array<Record<string, { Key?: unknown; Item?: unknown }>>) {
        addKey(request.DeleteRequest?.Key);
        addKey(request.PutRequest?.Item);
      }
    } else {
      for (const key of (perTable as { Keys?: unknown[] }).Keys ?? []) addKey(key);
    }
  }
  const call: Call = { action, partitions: [...partitions] };
  if (commandName === 'UpdateItemCommand') {
    const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
    const expression = `${input.UpdateExpression ?? ''} ${input.ConditionExpression ?? ''}`;
    const named = [...expression.matchAll(/(?<![:\w#])#?[A-Za-z_][A-Za-z0-9_]*/g)]
      .map((match) => match[0])
      .filter(
        (word) =>
          !/^(SET|REMOVE|ADD|DELETE|AND|OR|NOT|if_not_exists|attribute_exists|attribute_not_exists)$/.test(
            word,
          ),
      )
      .map((word) => (word.startsWith('#') ? names[word]! : word));
    call.attributes = [...new Set(['pk', 'sk', ...named])];
    if (typeof input.ReturnValues === 'string') call.returnValues = input.ReturnValues;
  }
  return call;
}

function prefixOf(pk: string): string {
  return pk.slice(0, pk.indexOf('#') + 1);
}
