/**
 * The API report: every name each `exports` entry of package.json makes public, with its
 * signature as the type checker sees it, in one Markdown file checked into the repository
 * (api/drf-gatehouse.api.md). test/package/api-report.test.ts fails when the source's surface and
 * the file differ, so any change to the public API shows in review as a change to that file.
 *
 * Regenerate it with `npm run api-report` after an intended change.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** Where the report lives, relative to the repository root. */
export const REPORT_PATH = 'api/drf-gatehouse.api.md'

const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType

/** `drf-gatehouse/kysely` → `src/kysely/index.ts`, from package.json's `exports` (types under dist/). */
export function entryPoints(root: string = ROOT): ReadonlyMap<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> }
  const entries = new Map<string, string>()
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target !== 'object' || target === null) continue
    const types = (target as { types?: unknown }).types
    if (typeof types !== 'string') continue
    const source = types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts')
    entries.set(subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, source)
  }
  return entries
}

function isPrivate(declaration: ts.Declaration | undefined): boolean {
  if (declaration === undefined) return false
  if (ts.isPrivateIdentifier((declaration as { name?: ts.Node }).name ?? declaration)) return true
  const flags = ts.getCombinedModifierFlags(declaration)
  return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0
}

function isReadonly(declaration: ts.Declaration | undefined): boolean {
  return declaration !== undefined && (ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly) !== 0
}

/** Whether a member is declared by the package (not inherited from `Error` or a library type). */
function isOwn(symbol: ts.Symbol, source: string): boolean {
  return (symbol.declarations ?? []).some((declaration) => resolve(declaration.getSourceFile().fileName).startsWith(source))
}

/** One line per member of an object type: `readonly name?: type`, methods as signatures. */
function members(checker: ts.TypeChecker, type: ts.Type, at: ts.Node, prefix = '', skip: ReadonlySet<string> = new Set()): string[] {
  const lines: string[] = []
  const source = resolve(ROOT, 'src')
  for (const signature of type.getCallSignatures()) lines.push(`  ${checker.signatureToString(signature, at, FLAGS)}`)
  for (const signature of type.getConstructSignatures()) lines.push(`  constructor${checker.signatureToString(signature, at, FLAGS)}`)
  for (const property of checker.getPropertiesOfType(type)) {
    const name = property.getName()
    const declaration = property.valueDeclaration ?? property.declarations?.[0]
    if (skip.has(name) || name.startsWith('__') || isPrivate(declaration) || !isOwn(property, source)) continue
    const propertyType = checker.getTypeOfSymbolAtLocation(property, declaration ?? at)
    const optional = (property.getFlags() & ts.SymbolFlags.Optional) !== 0 ? '?' : ''
    if ((property.getFlags() & ts.SymbolFlags.Method) !== 0) {
      for (const signature of propertyType.getCallSignatures()) lines.push(`  ${prefix}${name}${optional}${checker.signatureToString(signature, at, FLAGS)}`)
      continue
    }
    lines.push(`  ${prefix}${isReadonly(declaration) ? 'readonly ' : ''}${name}${optional}: ${checker.typeToString(propertyType, at, FLAGS)}`)
  }
  return lines
}

function typeParameters(declaration: ts.Declaration): string {
  const parameters = (declaration as { typeParameters?: ts.NodeArray<ts.TypeParameterDeclaration> }).typeParameters
  return parameters === undefined ? '' : `<${parameters.map((p) => p.getText()).join(', ')}>`
}

/** The report's block for one exported symbol. */
function describe(checker: ts.TypeChecker, name: string, exported: ts.Symbol): string[] {
  const symbol = (exported.getFlags() & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(exported) : exported
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0]
  if (declaration === undefined) return [`${name}: (no declaration)`]
  const flags = symbol.getFlags()
  const out: string[] = []
  if ((flags & ts.SymbolFlags.Class) !== 0) {
    const classNode = declaration as ts.ClassDeclaration
    const heritage = (classNode.heritageClauses ?? []).map((clause) => clause.getText()).join(' ')
    out.push(`class ${name}${typeParameters(declaration)}${heritage === '' ? '' : ` ${heritage}`} {`)
    const staticSide = checker.getTypeOfSymbolAtLocation(symbol, declaration)
    out.push(...members(checker, staticSide, declaration, 'static ', new Set(['prototype'])))
    out.push(...members(checker, checker.getDeclaredTypeOfSymbol(symbol), declaration))
    out.push('}')
    return out
  }
  if ((flags & ts.SymbolFlags.Interface) !== 0) {
    const interfaceNode = symbol.declarations?.find(ts.isInterfaceDeclaration)
    const heritage = (interfaceNode?.heritageClauses ?? []).map((clause) => clause.getText()).join(' ')
    out.push(`interface ${name}${interfaceNode === undefined ? '' : typeParameters(interfaceNode)}${heritage === '' ? '' : ` ${heritage}`} {`)
    out.push(...members(checker, checker.getDeclaredTypeOfSymbol(symbol), declaration))
    out.push('}')
  }
  if ((flags & ts.SymbolFlags.TypeAlias) !== 0) {
    const alias = symbol.declarations?.find(ts.isTypeAliasDeclaration)
    if (alias !== undefined) out.push(`type ${name}${typeParameters(alias)} = ${alias.type.getText().replace(/\s+/g, ' ')}`)
  }
  if ((flags & ts.SymbolFlags.Function) !== 0) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration)
    for (const signature of type.getCallSignatures()) out.push(`function ${name}${checker.signatureToString(signature, declaration, FLAGS)}`)
  } else if ((flags & ts.SymbolFlags.Variable) !== 0) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration)
    out.push(`const ${name}: ${checker.typeToString(type, declaration, FLAGS)}`)
  }
  return out.length > 0 ? out : [`${name}: (unsupported declaration kind)`]
}

/** The report's text for the package at `root`. */
export function apiReport(root: string = ROOT): string {
  const entries = entryPoints(root)
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
    },
  })
  if (config === undefined) throw new Error('tsconfig.json could not be read')
  const program = ts.createProgram({ rootNames: [...entries.values()].map((file) => resolve(root, file)), options: { ...config.options, noEmit: true } })
  const checker = program.getTypeChecker()
  const lines = [
    '# drf-gatehouse: public API report',
    '',
    'Generated by `npm run api-report` (scripts/api-report.ts) from the `exports` of package.json;',
    'test/package/api-report.test.ts fails when the source differs. Review changes here as API changes.',
  ]
  for (const [entry, file] of entries) {
    const source = program.getSourceFile(resolve(root, file))
    if (source === undefined) throw new Error(`${entry}: ${file} not found`)
    const moduleSymbol = checker.getSymbolAtLocation(source)
    const exports = moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol)
    lines.push('', `## ${entry}`, '', `${exports.length} exports (${file})`, '', '```ts')
    for (const exported of [...exports].sort((a, b) => (a.getName() < b.getName() ? -1 : a.getName() > b.getName() ? 1 : 0))) {
      lines.push(...describe(checker, exported.getName(), exported))
    }
    lines.push('```')
  }
  // Types named through their file (`import("/abs/path/src/x").Name`) read as `Name`: the report must not depend on the checkout's path.
  return `${lines.join('\n').replace(/import\("[^"]*"\)\./g, '')}\n`
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = apiReport()
  if (process.argv.includes('--check')) {
    if (readFileSync(join(ROOT, REPORT_PATH), 'utf8') !== report) {
      console.error(`${REPORT_PATH} is out of date: the public API changed. Run \`npm run api-report\` and review the diff.`)
      process.exit(1)
    }
    console.log(`${REPORT_PATH} matches the source`)
  } else {
    writeFileSync(join(ROOT, REPORT_PATH), report)
    console.log(`wrote ${REPORT_PATH}`)
  }
}
