/** The JavaScript runtime this process runs on, told by its globals (Bun and Deno each define their own). */
export function currentRuntime(): 'bun' | 'deno' | 'node' {
  const globals = globalThis as { Bun?: unknown; Deno?: unknown }
  if (globals.Bun !== undefined) return 'bun'
  if (globals.Deno !== undefined) return 'deno'
  return 'node'
}
