import { describe, expect, it } from 'vitest';
import { analyze, type EngineResult, ticks } from '../../lib/engine';

const node = (result: EngineResult, id: string) => result.nodes.find((n) => n.id === id)!;
const total = (result: EngineResult) => result.nodes.reduce((sum, n) => sum + n.load, 0);

describe('hand-computed cases', () => {
  it('a cycle with an exit: value circling A⇄B can only leave towards C, so all of A reaches C', () => {
    // A(6) → B, B → A, B → C; C already holds 2 and has no way out.
    // r(C) = 1, r(B) = ½·r(A) + ½, r(A) = r(B)  ⇒  r(A) = r(B) = 1.
    const result = analyze({
      nodes: [
        { id: 'A', load: 6 },
        { id: 'B', load: 0 },
        { id: 'C', load: 2 },
      ],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'A' },
        { from: 'B', to: 'C' },
      ],
    });
    expect(result.dependencies.map((d) => d.flow)).toEqual([6, 0, 0]);
    expect(result.primaryBlockage).toBe('C');
    expect(node(result, 'C').pressure).toBe(2);
    expect(result.origin).toEqual({ id: 'A', load: 6, contribution: 6, share: 0.75 });
    expect(result.trace).toEqual(['A', 'B', 'C']);
    expect(result.events).toEqual([
      { tick: 0, type: 'cycle', nodes: ['A', 'B'], closed: false },
      { tick: 0, type: 'blocked', node: 'C', pressure: 2 },
    ]);
  });

  it('a leaky cycle: half of what leaves B goes to a second sink, so only a third of A reaches C', () => {
    // B splits ¼ back to A, ¼ to C, ½ to D.  r(B) = ¼·r(A) + ¼, r(A) = r(B)  ⇒  r = 1/3.
    const result = analyze({
      nodes: [
        { id: 'A', load: 6 },
        { id: 'B', load: 0 },
        { id: 'C', load: 3 },
        { id: 'D', load: 0 },
      ],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'A' },
        { from: 'B', to: 'C' },
        { from: 'B', to: 'D', weight: 2 },
      ],
    });
    expect(result.primaryBlockage).toBe('C');
    // Contributions: A 6 · ⅓ = 2, C 3 · 1 = 3.
    expect(result.origin!.id).toBe('C');
    expect(result.origin!.contribution).toBe(3);
    expect(result.origin!.share).toBeCloseTo(0.6, 12);
    expect(result.trace).toEqual(['C']);
  });

  it('a closed cycle traps value for good: reported closed, never settles, conserves the total', () => {
    // A → B → C → A with X feeding A from outside; B can pass on only 1 per tick.
    const structure = {
      nodes: [
        { id: 'A', load: 4 },
        { id: 'B', load: 0, capacity: 1 },
        { id: 'C', load: 0 },
        { id: 'X', load: 1 },
      ],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'C' },
        { from: 'C', to: 'A' },
        { from: 'X', to: 'A' },
      ],
    };
    const result = analyze(structure);
    expect(result.events).toEqual([
      { tick: 0, type: 'cycle', nodes: ['A', 'B', 'C'], closed: true },
      { tick: 0, type: 'blocked', node: 'B', pressure: 3 },
    ]);
    expect(result.primaryBlockage).toBe('B');
    // Every node reaches B with certainty: contributions A 4, X 1.
    expect(result.origin).toEqual({ id: 'A', load: 4, contribution: 4, share: 0.8 });
    expect(result.trace).toEqual(['A', 'B']);

    const timeline = ticks(structure, 20);
    for (const snapshot of timeline) {
      expect(total(snapshot)).toBeCloseTo(5, 12);
      expect(snapshot.events.some((e) => e.type === 'settled')).toBe(false);
    }
  });

  it('weights split a node outflow in proportion: 12 leaves A as 4 and 8', () => {
    const result = analyze({
      nodes: [
        { id: 'A', load: 12 },
        { id: 'B', load: 0 },
        { id: 'C', load: 0 },
      ],
      dependencies: [
        { from: 'A', to: 'B', weight: 1 },
        { from: 'A', to: 'C', weight: 2 },
      ],
    });
    expect(result.dependencies[0]!.flow).toBeCloseTo(4, 12);
    expect(result.dependencies[1]!.flow).toBeCloseTo(8, 12);
    expect(result.dependencies[0]!.flow + result.dependencies[1]!.flow).toBe(12);
    expect(result.dependencies.map((d) => d.weight)).toEqual([1, 2]);
    expect(result.primaryBlockage).toBe('C');
    // r(A) = ⅔ towards C: contribution 8 of 8.
    expect(result.origin!.id).toBe('A');
    expect(result.origin!.contribution).toBeCloseTo(8, 12);
    expect(result.origin!.share).toBe(1);
    expect(result.trace).toEqual(['A', 'C']);
  });

  it('a self-dependency keeps half of A at A each step; A counts as a relay and as a cycle', () => {
    const structure = {
      nodes: [
        { id: 'A', load: 5 },
        { id: 'B', load: 0 },
      ],
      dependencies: [
        { from: 'A', to: 'A' },
        { from: 'A', to: 'B' },
      ],
    };
    const result = analyze(structure);
    expect(result.dependencies.map((d) => d.flow)).toEqual([2.5, 2.5]);
    expect(node(result, 'A')).toMatchObject({ inflow: 2.5, outflow: 5, pressure: 0, role: 'relay' });
    expect(node(result, 'B')).toMatchObject({ inflow: 2.5, pressure: 2.5, role: 'sink' });
    expect(result.primaryBlockage).toBe('B');
    // r(A) = ½·r(A) + ½ ⇒ r(A) = 1.
    expect(result.origin).toEqual({ id: 'A', load: 5, contribution: 5, share: 1 });
    expect(result.events[0]).toEqual({ tick: 0, type: 'cycle', nodes: ['A'], closed: false });
    expect(ticks(structure, 2).map((s) => node(s, 'A').load)).toEqual([2.5, 1.25]);
  });

  it('repeated pairs count on their own: two A→B and one A→C carry a third each', () => {
    const result = analyze({
      nodes: [
        { id: 'A', load: 9 },
        { id: 'B', load: 0 },
        { id: 'C', load: 0 },
      ],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'A', to: 'C' },
        { from: 'A', to: 'B' },
      ],
    });
    expect(result.dependencies.map((d) => d.flow)).toEqual([3, 3, 3]);
    expect(node(result, 'B').pressure).toBe(6);
    expect(result.primaryBlockage).toBe('B');
    expect(result.origin!.contribution).toBeCloseTo(6, 12);
    expect(result.trace).toEqual(['A', 'B']);
  });

  it('an isolated node with load has nowhere to send it: blocked, and its own origin', () => {
    const result = analyze({
      nodes: [
        { id: 'X', load: 7 },
        { id: 'A', load: 1 },
        { id: 'B', load: 0 },
      ],
      dependencies: [{ from: 'A', to: 'B' }],
    });
    expect(node(result, 'X')).toMatchObject({
      inflow: 0,
      outflow: 0,
      pressure: 7,
      blocked: true,
      role: 'isolated',
    });
    expect(result.primaryBlockage).toBe('X');
    expect(result.origin).toEqual({ id: 'X', load: 7, contribution: 7, share: 1 });
    expect(result.trace).toEqual(['X']);
  });

  it('an empty structure is settled from the start and has nothing to trace', () => {
    const empty = { nodes: [], dependencies: [] };
    expect(analyze(empty)).toEqual({
      nodes: [],
      dependencies: [],
      primaryBlockage: null,
      events: [{ tick: 0, type: 'settled' }],
      origin: null,
      trace: [],
    });
    expect(ticks(empty, 3).map((s) => s.events)).toEqual([[{ tick: 1, type: 'settled' }], [], []]);
  });

  it('a capacity blockage comes ahead of a larger terminal one', () => {
    // B can pass on 2 per tick and receives 10 (pressure 8); C holds 20 with no way out.
    const result = analyze({
      nodes: [
        { id: 'A', load: 10 },
        { id: 'B', load: 0, capacity: 2 },
        { id: 'C', load: 20 },
      ],
      dependencies: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'C' },
      ],
    });
    expect(node(result, 'B').pressure).toBe(8);
    expect(node(result, 'C').pressure).toBe(20);
    expect(result.primaryBlockage).toBe('B');
    expect(result.origin).toEqual({ id: 'A', load: 10, contribution: 10, share: 1 });
    expect(result.trace).toEqual(['A', 'B']);
  });

  it('ties go to the smallest id: two sinks with equal pressure', () => {
    // A splits 4 evenly between sinks y and x (listed y first): both end with pressure 2.
    const result = analyze({
      nodes: [
        { id: 'A', load: 4 },
        { id: 'y', load: 0 },
        { id: 'x', load: 0 },
      ],
      dependencies: [
        { from: 'A', to: 'y' },
        { from: 'A', to: 'x' },
      ],
    });
    expect(node(result, 'x').pressure).toBe(2);
    expect(node(result, 'y').pressure).toBe(2);
    expect(result.primaryBlockage).toBe('x');
    expect(result.origin).toEqual({ id: 'A', load: 4, contribution: 2, share: 1 });
    expect(result.trace).toEqual(['A', 'x']);
  });

  it('ties go to the smallest id: two sources with equal contributions', () => {
    // Q and P (listed Q first) each send 2 to the sink s.
    const result = analyze({
      nodes: [
        { id: 'Q', load: 2 },
        { id: 'P', load: 2 },
        { id: 's', load: 0 },
      ],
      dependencies: [
        { from: 'Q', to: 's' },
        { from: 'P', to: 's' },
      ],
    });
    expect(result.primaryBlockage).toBe('s');
    expect(result.origin).toEqual({ id: 'P', load: 2, contribution: 2, share: 0.5 });
    expect(result.trace).toEqual(['P', 's']);
  });

  it('ties go to the smallest id: two equally likely routes, the trace takes M before N', () => {
    // A reaches Z through N or through M, each with probability ½ (N listed first).
    const result = analyze({
      nodes: [
        { id: 'A', load: 4 },
        { id: 'N', load: 0 },
        { id: 'M', load: 0 },
        { id: 'Z', load: 1 },
      ],
      dependencies: [
        { from: 'A', to: 'N' },
        { from: 'A', to: 'M' },
        { from: 'N', to: 'Z' },
        { from: 'M', to: 'Z' },
      ],
    });
    expect(result.primaryBlockage).toBe('Z');
    expect(result.origin).toEqual({ id: 'A', load: 4, contribution: 4, share: 0.8 });
    expect(result.trace).toEqual(['A', 'M', 'Z']);
  });

  it('the trace follows the most probable route, not the shortest one', () => {
    // A → T directly carries 1/10 of A; A → B → T carries 9/10 · 1.
    const result = analyze({
      nodes: [
        { id: 'A', load: 10 },
        { id: 'B', load: 0 },
        { id: 'T', load: 0 },
      ],
      dependencies: [
        { from: 'A', to: 'T', weight: 1 },
        { from: 'A', to: 'B', weight: 9 },
        { from: 'B', to: 'T' },
      ],
    });
    expect(result.primaryBlockage).toBe('T');
    expect(result.trace).toEqual(['A', 'B', 'T']);
  });
});
