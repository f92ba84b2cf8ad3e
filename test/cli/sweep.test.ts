/**
 * `npm run sweep` over what failed requests really leave behind: a registration whose head write
 * failed (its chunks, and a quota hold that never ended), a delete whose chunk cleanup failed.
 * Both are made over HTTP with faults injected in front of dynalite; the sweep then reads the
 * table directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSweepCli } from '../../cli/sweep';
import { type FaultService, startFaultService } from '../helpers/fault-service';
import { post } from '../integration/server';

let service: FaultService;
const HOUR = 60 * 60 * 1000;

beforeAll(async () => {
  service = await startFaultService({ chunkBytes: 100 });
});
afterAll(() => service.close());

async function sweep(args: string, now: number) {
  let stdout = '';
  let stderr = '';
  const code = await runSweepCli(args.split(' ').filter(Boolean), {
    doc: service.doc,
    tableName: service.tableName,
    now: () => now,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  return { code, stdout, stderr };
}

const structure = {
  nodes: Array.from({ length: 40 }, (_, index) => ({ id: `node-${index * 7919}`, load: index % 3 })),
  dependencies: Array.from({ length: 39 }, (_, index) => ({
    from: `node-${index * 7919}`,
    to: `node-${(index + 1) * 7919}`,
  })),
};
const register = (owner: string) =>
  post(service.url, service.token(owner), { name: 'swept', document: structure }, { path: '/api/systems' });

describe('npm run sweep', () => {
  it('lists orphaned chunks and stale quota holds older than an hour, and deletes them only when asked', async () => {
    // A healthy system: never touched by the sweep.
    const kept = await register('alice');
    expect(kept.status).toBe(201);

    // A registration whose head write fails on every attempt, and whose read of the head to tell
    // whether it landed fails too (the table unreachable, as after a crash): its chunks stay, unread.
    service.proxy.reset((call) =>
      (call.operation === 'PutItem' && String(call.body.Item.sk.S).startsWith('SYSTEM#')) ||
      (call.operation === 'GetItem' && String(call.body.Key.sk.S).startsWith('SYSTEM#'))
        ? { kind: 'error', error: 'InternalServerError' }
        : undefined,
    );
    expect((await register('bob')).status).toBe(503);

    // A delete whose chunk cleanup fails: the system is gone, its chunks stay.
    service.proxy.reset();
    const deleted = await register('carol');
    service.proxy.reset((call) =>
      call.operation === 'BatchWriteItem' ? { kind: 'error', error: 'ThrottlingException' } : undefined,
    );
    const removal = await post(service.url, service.token('carol'), undefined, {
      method: 'DELETE',
      path: `/api/systems/${deleted.json.id}`,
    });
    expect(removal.status).toBe(204);
    service.proxy.reset();

    // Young: a create could still be writing them.
    const now = Date.now();
    expect((await sweep('', now)).stdout).toContain('Orphaned chunks older than an hour: 0 in 0 groups');

    const later = now + 2 * HOUR;
    const dry = await sweep('', later);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/Orphaned chunks older than an hour: \d+ in 2 groups/);
    expect(dry.stdout).toContain(`system ${deleted.json.id} v1`);
    expect(dry.stdout).toContain('owner bob');
    expect(dry.stdout).toContain('(no head)');
    expect(dry.stdout).not.toContain(kept.json.id);
    expect(dry.stdout).toMatch(
      /Quota counters with a change older than an hour: 1\n {2}owner bob {2}1 since/,
    );
    expect(dry.stdout).toContain('Nothing changed (dry run)');
    // Dry means dry.
    expect((await sweep('--json', later)).stdout).toContain('"deletedChunks": 0');

    const wet = await sweep('--delete', later);
    expect(wet.stdout).toMatch(/Deleted \d+ chunks; recounted 1 owner\./);
    const after = JSON.parse((await sweep('--json', later)).stdout);
    expect(after).toMatchObject({ orphans: [], owners: [] });

    // The healthy system reads back whole; bob's counter is back to what bob holds.
    const read = await post(service.url, service.token('alice'), undefined, {
      method: 'GET',
      path: `/api/systems/${kept.json.id}`,
    });
    expect(read.json.structure).toEqual(structure);
    expect((await register('bob')).status).toBe(201);
    expect(await service.stores.systems.usage('bob')).toMatchObject({ systems: 1 });
  });

  it('refuses unknown options', async () => {
    const { code, stderr } = await sweep('--force', Date.now());
    expect(code).toBe(2);
    expect(stderr).toContain('npm run sweep -- --help');
  });
});
