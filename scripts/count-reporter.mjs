// A silent vitest reporter for `npm test`: writes the run's counts to the file named by
// NETPOLICY_TEST_COUNTS, from which scripts/test.mjs prints its closing line. (vitest's JSON
// reporter announces the report file it writes, which test.mjs then deleted.)
import { writeFileSync } from 'node:fs';

export default class CountReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    const counts = { passed: 0, failed: 0, skipped: 0, failedModules: 0, unhandledErrors: unhandledErrors?.length ?? 0 };
    for (const m of testModules) {
      if (m.state() === 'failed' && [...m.children.allTests()].every((t) => t.result().state !== 'failed')) counts.failedModules++;
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    if (process.env.NETPOLICY_TEST_COUNTS) writeFileSync(process.env.NETPOLICY_TEST_COUNTS, JSON.stringify(counts));
  }
}
