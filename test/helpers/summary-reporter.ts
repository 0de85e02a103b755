import type { Reporter, RunnerTask, RunnerTestFile } from 'vitest/node'

/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, after
 * vitest's own summary, so CI logs state the count in a runner-neutral form.
 */
export default class SummaryReporter implements Reporter {
  onFinished(files: RunnerTestFile[] = [], errors: unknown[] = []): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    const visit = (task: RunnerTask): void => {
      if (task.type === 'test') {
        if (task.mode === 'skip' || task.mode === 'todo') skipped++
        else if (task.result?.state === 'pass') passed++
        else if (task.result?.state === 'fail') failed++
        else skipped++
        return
      }
      if ('tasks' in task) for (const child of task.tasks) visit(child)
    }
    for (const file of files) {
      if (file.result?.state === 'fail' && file.tasks.length === 0) failed++
      visit(file)
    }
    failed += errors.length
    console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
  }
}
