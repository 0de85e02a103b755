import type { Reporter, RunnerTask, RunnerTestFile, Vitest } from 'vitest/node'
import { inCi } from './requirements.js'

/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, after
 * vitest's own summary, so CI logs state the count in a runner-neutral form.
 *
 * Under CI (`CI=true`) a skipped test fails the run, whatever skipped it (`skipIf`, `runIf`,
 * `ctx.skip()`, `it.skip`): every requirement is installed there, so a skip is a gap, not a
 * pass. The skipped tests are listed. Not when the run selects tests by name (`-t`), which
 * marks the others skipped.
 */
export default class SummaryReporter implements Reporter {
  private selectsByName = false

  onInit(vitest: Vitest): void {
    this.selectsByName = vitest.config.testNamePattern !== undefined
  }

  onFinished(files: RunnerTestFile[] = [], errors: unknown[] = []): void {
    let passed = 0
    let failed = 0
    const skipped: string[] = []
    const visit = (task: RunnerTask, path: string): void => {
      const name = path === '' ? task.name : `${path} > ${task.name}`
      if (task.type === 'test') {
        if (task.mode === 'skip' || task.mode === 'todo') skipped.push(name)
        else if (task.result?.state === 'pass') passed++
        else if (task.result?.state === 'fail') failed++
        else skipped.push(name)
        return
      }
      if ('tasks' in task) for (const child of task.tasks) visit(child, name)
    }
    for (const file of files) {
      if (file.result?.state === 'fail' && file.tasks.length === 0) failed++
      visit(file, '')
    }
    failed += errors.length
    if (inCi() && !this.selectsByName && skipped.length > 0) {
      console.log(`\nCI=true: ${skipped.length} skipped test(s) fail the run (a missing service, interpreter or browser?):`)
      for (const name of skipped.slice(0, 50)) console.log(`  skipped: ${name}`)
      if (skipped.length > 50) console.log(`  … and ${skipped.length - 50} more`)
      process.exitCode = 1
    }
    console.log(`tests: ${passed} passed, ${failed} failed, ${skipped.length} skipped`)
  }
}
