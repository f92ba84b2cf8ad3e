import type { RunnerTestCase } from 'vitest';
import type { Reporter, Vitest } from 'vitest/node';

/**
 * For mutation runs only: a test file that fails to load (its import threw) counts as one failed
 * test. Stryker's vitest runner (9.6, stryker-js#6150) builds a mutant's result from the tests
 * it collected; a file whose import throws collects none, so a static mutant that stops a module
 * from loading, which every test importing it notices, would be reported Survived.
 */
export default class LoadFailureAsFailedTest implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(): void {
    for (const file of this.#vitest?.state.getFiles() ?? []) {
      if (file.result?.state !== 'fail' || file.tasks.length > 0) continue;
      // Only the fields a reader of the finished run looks at; the test never runs.
      const loads = {
        type: 'test',
        id: `${file.id}_load`,
        name: 'loads',
        mode: 'run',
        file,
        suite: file,
        meta: {},
        result: { state: 'fail', errors: file.result.errors },
      } as unknown as RunnerTestCase;
      file.tasks.push(loads);
    }
  }
}
