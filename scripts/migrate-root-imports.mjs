#!/usr/bin/env node
// Rewrites imports of names that left the root entry `pagewise` for its subpaths (`pagewise/paging`,
// `pagewise/compression`, ...; the table is scripts/root-entry-moves.json, and the changelog lists it). Each
// `import { ... } from 'pagewise'` (and `import type`, `export ... from`) keeps the names still at the root and
// gains one statement per subpath for the rest. TypeScript and JavaScript files are rewritten through the
// TypeScript parser; Markdown files (code samples) through their import statements.
//
//   node scripts/migrate-root-imports.mjs <file> ...     (rewrites in place; prints the files it changed)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const MOVES = JSON.parse(readFileSync(path.join(import.meta.dirname, 'root-entry-moves.json'), 'utf8'));

/** The name a specifier imports from the module (`a` of `a as b`, `X` of `type X`). */
function importedName(spelled) {
  return spelled
    .replace(/^type\s+/, '')
    .split(/\s+as\s+/)[0]
    .trim();
}

/** The statements that replace one `{ specifiers } from 'pagewise'` statement, or undefined when none moved. */
function split(keyword, typeOnly, specifiers, quote, root = 'pagewise') {
  // The workspace's own tests import the entry's source file by path: a moved name goes to its entry's file.
  const relative = root === 'pagewise' ? undefined : root.replace(/index\.js$/, '');
  const byModule = new Map();
  for (const spelled of specifiers) {
    const moved = MOVES[importedName(spelled)];
    const module = moved === undefined ? root : relative ? `${relative}${moved.slice('pagewise/'.length)}.js` : moved;
    byModule.set(module, [...(byModule.get(module) ?? []), spelled]);
  }
  if (byModule.size === 1 && byModule.has(root)) return undefined;
  const order = [...byModule.keys()].sort((a, b) => (a === root ? -1 : b === root ? 1 : a.localeCompare(b)));
  return order
    .map(
      (module) =>
        `${keyword} ${typeOnly ? 'type ' : ''}{ ${byModule.get(module).join(', ')} } from ${quote}${module}${quote};`,
    )
    .join('\n');
}

/** A TypeScript or JavaScript source with its root imports of moved names rewritten; undefined when unchanged. */
export function migrateSource(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const edits = [];
  for (const statement of source.statements) {
    const isImport = ts.isImportDeclaration(statement);
    if (!isImport && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    const root = specifier.text;
    if (root !== 'pagewise' && !/(^|\/)packages\/pagewise\/src\/index\.js$/.test(root)) continue;
    let typeOnly;
    let elements;
    if (isImport) {
      const clause = statement.importClause;
      if (!clause || clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) continue;
      typeOnly = clause.isTypeOnly;
      elements = clause.namedBindings.elements;
    } else {
      if (!statement.exportClause || !ts.isNamedExports(statement.exportClause)) continue;
      typeOnly = statement.isTypeOnly;
      elements = statement.exportClause.elements;
    }
    const quote = specifier.getText(source)[0];
    const replaced = split(
      isImport ? 'import' : 'export',
      typeOnly,
      elements.map((element) => element.getText(source)),
      quote,
      root,
    );
    if (replaced !== undefined)
      edits.push({ start: statement.getStart(source), end: statement.getEnd(), text: replaced });
  }
  if (edits.length === 0) return undefined;
  let out = text;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

const MARKDOWN_IMPORT = /\b(import|export)\s+(type\s+)?\{([^}]*)\}\s+from\s+(['"])pagewise\4;?/g;

/** A Markdown text with the root imports of its code samples rewritten; undefined when unchanged. */
export function migrateMarkdown(text) {
  let changed = false;
  const out = text.replace(MARKDOWN_IMPORT, (whole, keyword, typeOnly, list, quote) => {
    const specifiers = list
      .split(',')
      .map((spelled) => spelled.trim())
      .filter(Boolean);
    const replaced = split(keyword, Boolean(typeOnly), specifiers, quote);
    if (replaced === undefined) return whole;
    changed = true;
    return replaced;
  });
  return changed ? out : undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const file of process.argv.slice(2)) {
    const text = readFileSync(file, 'utf8');
    const migrated = file.endsWith('.md') ? migrateMarkdown(text) : migrateSource(file, text);
    if (migrated !== undefined) {
      writeFileSync(file, migrated);
      process.stdout.write(`${file}\n`);
    }
  }
}
