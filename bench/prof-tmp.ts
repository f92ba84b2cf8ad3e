import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { analyze, type NodeInput, type Structure } from '../lib/engine';
import { generateStructure, type Shape } from './generate';

const shape = (process.argv[2] ?? 'random') as Shape;
const which = process.argv[3] ?? 'slo';
const serversOf = (i: number) => 1 + (i % 8);
const utilizationOf = (i: number) => 0.2 + (0.4 * ((i * 7919) % 100)) / 100;
const structure = generateStructure({ shape, nodeCount: 200_000, dependencyCount: 1_000_000 });
const hasOut = new Set(structure.dependencies.map((d) => d.from));
const open: Structure = {
  dependencies: structure.dependencies,
  nodes: structure.nodes.map((node, i) => {
    const o: NodeInput = { ...node };
    if (i % 100 === 0) o.arrival = 1 + (i % 7);
    if (!hasOut.has(node.id) || i % 10 === 3) o.exit = 1;
    return o;
  }),
};
const today = analyze(open);
const throughput = today.nodes.map((n) => n.throughput ?? 0);
const st = (i: number) => {
  const x = throughput[i]!;
  return x > 0 && x < Infinity ? (utilizationOf(i) * serversOf(i)) / x : undefined;
};
const twin = (kind: string, slo?: Map<string, number>): Structure => ({
  dependencies: open.dependencies,
  nodes: open.nodes.map((node, i) => {
    const { capacity: _d, ...rest } = node;
    const s = st(i);
    if (s === undefined) return rest as NodeInput;
    if (kind === 'capacity') return { ...rest, capacity: serversOf(i) / s };
    const t = slo?.get(node.id);
    return { ...rest, serviceTime: s, servers: serversOf(i), ...(t === undefined ? {} : { slo: t }) };
  }),
});
const lat = twin('latency');
const ls = analyze(lat).nodes.filter((n) => typeof n.latency === 'number');
const slo = new Map(ls.slice(0, 10).map((n) => [n.id, 2 * (n.latency as number)]));
const target = which === 'capacity' ? twin('capacity') : which === 'latency' ? lat : twin('latency', slo);
analyze(target);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
await session.post('Profiler.start');
let cpu = process.cpuUsage();
for (let r = 0; r < 3; r++) {
  const t = performance.now();
  analyze(target);
  console.log(which, (performance.now() - t).toFixed(0), 'ms');
}
cpu = process.cpuUsage(cpu);
console.log('cpu per run', ((cpu.user + cpu.system) / 3000).toFixed(0));
const { profile } = await session.post('Profiler.stop');
writeFileSync(`/tmp/p3/${shape}-${which}.cpuprofile`, JSON.stringify(profile));
