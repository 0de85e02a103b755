import ts from 'typescript'

/**
 * What a documentation block must not use, beyond what the compiler refuses: a module that is
 * not a package entry (a deep `drf-gatehouse/src/…` or `drf-gatehouse/dist/…` path, a relative import
 * into the repository), and any name whose declaration is marked `@deprecated`. Each problem
 * is `file:line:column message`, positions in the generated block module.
 */
export function forbiddenUses(program: ts.Program, files: readonly string[], entries: ReadonlySet<string>): string[] {
  const checker = program.getTypeChecker()
  const problems: string[] = []
  for (const fileName of files) {
    const source = program.getSourceFile(fileName)
    if (source === undefined) continue
    const at = (node: ts.Node): string => {
      const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source))
      return `${fileName}:${line + 1}:${character + 1}`
    }
    const visit = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
        const specifier = node.moduleSpecifier.text
        if ((specifier === 'drf-gatehouse' || specifier.startsWith('drf-gatehouse/')) && !entries.has(specifier)) {
          problems.push(`${at(node.moduleSpecifier)} '${specifier}' is not a package entry (internal module)`)
        } else if (specifier.startsWith('.')) {
          problems.push(`${at(node.moduleSpecifier)} '${specifier}' is a relative import: documentation imports the package by name`)
        }
      }
      if (ts.isIdentifier(node) && !ts.isImportSpecifier(node.parent)) {
        let symbol = checker.getSymbolAtLocation(node)
        if (symbol !== undefined && (symbol.getFlags() & ts.SymbolFlags.Alias) !== 0) symbol = checker.getAliasedSymbol(symbol)
        const deprecated = symbol?.declarations?.some((declaration) => ts.getJSDocDeprecatedTag(declaration) !== undefined) ?? false
        if (deprecated) problems.push(`${at(node)} '${node.text}' is deprecated`)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return problems
}
