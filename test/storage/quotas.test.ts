/**
 * The quota counter's own rules, against dynalite, with the owner's real holdings stubbed: what
 * a refusal names, and why a recount can never count away a change that is under way.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoOwnerQuotas, QuotaExceededError, type Usage } from '../../lib/storage/quotas';
import { useFreshTable } from '../helpers/dynalite';

const table = useFreshTable();
const LIMITS = { maxSystems: 2, maxKeys: 1, maxBytes: 1000 };
const HOUR = 60 * 60 * 1000;

function quotasWith(usage: (owner: string) => Promise<Usage>, now: () => number = Date.now) {
  return new DynamoOwnerQuotas({ doc: table.doc, tableName: table.tableName, quotas: LIMITS, usage, now });
}

async function counter(owner: string) {
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.tableName,
      Key: { pk: `OWNER#${owner}`, sk: 'QUOTA' },
      ConsistentRead: true,
    }),
  );
  return Item;
}

const nothingHeld = async (): Promise<Usage> => ({ systems: 0, keys: 0, bytes: 0 });

describe('DynamoOwnerQuotas', () => {
  // Two systems fit, the third is refused, naming the quota and its limit; an abort gives back.
  it('counts increases on begin and refuses past a limit', async () => {
    // What ann really holds, as a recount would find it.
    let held: Usage = { systems: 0, keys: 0, bytes: 0 };
    const quotas = quotasWith(async () => held);
    const first = await quotas.begin('ann', { systems: 1, bytes: 400 });
    held = { systems: 1, keys: 0, bytes: 400 };
    await first.commit();
    const second = await quotas.begin('ann', { systems: 1, bytes: 400 });
    await expect(quotas.begin('ann', { systems: 1, bytes: 10 })).rejects.toMatchObject({
      quota: 'systems',
      limit: 2,
    });
    await second.abort();
    expect(await counter('ann')).toMatchObject({ systems: 1, bytes: 400 });
    await expect(quotas.begin('ann', { systems: 1, bytes: 601 })).rejects.toMatchObject({ quota: 'bytes' });
    // One change larger than the whole quota is refused without a write.
    await expect(quotas.begin('ann', { bytes: 1001 })).rejects.toBeInstanceOf(QuotaExceededError);
  });

  // Decreases apply on commit only: until then the counter still holds the system.
  it('applies decreases after the change', async () => {
    const quotas = quotasWith(nothingHeld);
    await (await quotas.begin('bo', { systems: 1, bytes: 300 })).commit();
    const removal = await quotas.begin('bo');
    expect(await counter('bo')).toMatchObject({ systems: 1, bytes: 300 });
    await removal.commit({ systems: -1, bytes: -300 });
    expect(await counter('bo')).toMatchObject({ systems: 0, bytes: 0 });
    // Ending a hold twice changes nothing.
    await removal.commit({ systems: -1, bytes: -300 });
    expect(await counter('bo')).toMatchObject({ systems: 0, bytes: 0 });
  });

  // A change in flight is not in the owner's items yet: a recount then would lose it.
  it('does not recount while a change is in flight, and drops it once an hour old', async () => {
    let clock = Date.now();
    const quotas = quotasWith(nothingHeld, () => clock);
    await quotas.begin('cy', { systems: 1 });
    expect(await quotas.reconcile('cy')).toBe(false);
    expect(await counter('cy')).toMatchObject({ systems: 1 });
    clock += HOUR + 1;
    expect(await quotas.reconcile('cy')).toBe(true);
    const after = await counter('cy');
    expect(after).toMatchObject({ systems: 0 });
    expect(Object.keys(after ?? {}).filter((name) => name.startsWith('hold_'))).toEqual([]);
  });

  // A change that begins while a recount is counting: the recount's write is refused, so the
  // change's increase is never counted away.
  it('never writes a recount over a change that began meanwhile', async () => {
    let during: (() => Promise<void>) | undefined;
    const quotas = quotasWith(async () => {
      await during?.();
      return { systems: 0, keys: 0, bytes: 0 };
    });
    await (await quotas.begin('di', { keys: 1 })).abort();
    // Overcount the owner by hand, so that a recount has something to correct.
    await (await quotas.begin('di', { systems: 1 })).commit();
    during = async () => {
      during = undefined;
      await quotas.begin('di', { keys: 1 });
    };
    expect(await quotas.reconcile('di')).toBe(false);
    expect(await counter('di')).toMatchObject({ systems: 1, keys: 1 });
  });

  // The first change of an owner starts the counter from what they already hold.
  it('starts a counter from the owner’s holdings', async () => {
    const quotas = quotasWith(async () => ({ systems: 2, keys: 0, bytes: 50 }));
    await expect(quotas.begin('ed', { systems: 1 })).rejects.toMatchObject({ quota: 'systems', limit: 2 });
    expect(await counter('ed')).toMatchObject({ systems: 2, bytes: 50, revision: 0 });
  });
});
