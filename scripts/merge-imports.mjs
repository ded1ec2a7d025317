#!/usr/bin/env node
// Merges repeated imports of one module into one statement, the fix for ESLint's `no-duplicate-imports` (which
// reports them but cannot fix them): named imports of the same kind (value, or `import type`) from the same
// module join the first such statement, in its place. Default and namespace imports are left alone.
//
//   node scripts/merge-imports.mjs <file.ts> ...     (rewrites the files in place; prints the ones it changed)
import { readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';

/** The text of a file with its repeated named imports merged, or undefined when it has none. */
export function mergeImports(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const groups = new Map();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause) continue;
    const clause = statement.importClause;
    if (clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) continue;
    if (statement.attributes) continue;
    const key = JSON.stringify([statement.moduleSpecifier.text, clause.isTypeOnly]);
    const group = groups.get(key) ?? [];
    group.push(statement);
    groups.set(key, group);
  }
  const edits = [];
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const [first, ...rest] = group;
    const seen = new Set();
    const specifiers = [];
    for (const statement of group)
      for (const element of statement.importClause.namedBindings.elements) {
        const spelled = element.getText(source);
        if (!seen.has(spelled)) specifiers.push(spelled);
        seen.add(spelled);
      }
    const typeOnly = first.importClause.isTypeOnly ? 'type ' : '';
    const merged = `import ${typeOnly}{ ${specifiers.join(', ')} } from ${first.moduleSpecifier.getText(source)};`;
    edits.push({ start: first.getStart(source), end: first.getEnd(), text: merged });
    for (const statement of rest) {
      let end = statement.getEnd();
      if (text[end] === '\n') end += 1;
      edits.push({ start: statement.getFullStart() === 0 ? 0 : statement.getStart(source), end, text: '' });
    }
  }
  if (edits.length === 0) return undefined;
  edits.sort((a, b) => b.start - a.start);
  let out = text;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const file of process.argv.slice(2)) {
    const merged = mergeImports(file, readFileSync(file, 'utf8'));
    if (merged !== undefined) {
      writeFileSync(file, merged);
      process.stdout.write(`${file}\n`);
    }
  }
}
