// `pagewise/short-names`: CONTRIBUTING's rule that declared names are words. A one-letter name is reported where it
// is declared (a variable, a function, a parameter, a catch binding, a class, a type or an interface), except the
// parameters of a lambda written on one line (`(a, b) => a - b`, `xs.map((x) => x.id)`), which the project allows,
// type parameters (`<T>`), and `_`, the placeholder for a value left unused. No file is held back from it:
// eslint-suppressions.json has no entry for it, and test/architecture/short-names-rule.test.ts keeps it so.

/** Whether `node` is a function written on a single line. */
function oneLine(node) {
  return node.loc.start.line === node.loc.end.line;
}

/** The identifiers a binding pattern declares. */
function* bound(pattern) {
  if (!pattern) return;
  switch (pattern.type) {
    case 'Identifier':
      yield pattern;
      break;
    case 'ObjectPattern':
      for (const property of pattern.properties)
        yield* bound(property.type === 'RestElement' ? property : property.value);
      break;
    case 'ArrayPattern':
      for (const element of pattern.elements) yield* bound(element);
      break;
    case 'RestElement':
      yield* bound(pattern.argument);
      break;
    case 'AssignmentPattern':
      yield* bound(pattern.left);
      break;
    case 'TSParameterProperty':
      yield* bound(pattern.parameter);
      break;
  }
}

export default {
  meta: {
    type: 'suggestion',
    docs: { description: 'Declared names are words, not single letters (one-line lambdas and type parameters aside).' },
    schema: [],
    messages: {
      short:
        "'{{name}}' is one letter: name what it holds (index, event, tokens), as CONTRIBUTING's Names section asks.",
    },
  },
  create(context) {
    const report = (identifier) => {
      if (identifier.name.length === 1 && identifier.name !== '_')
        context.report({ node: identifier, messageId: 'short', data: { name: identifier.name } });
    };
    const functionLike = (node) => {
      if (node.id) report(node.id);
      if (node.type === 'ArrowFunctionExpression' && oneLine(node)) return;
      for (const param of node.params) for (const identifier of bound(param)) report(identifier);
    };
    return {
      VariableDeclarator: (node) => {
        for (const identifier of bound(node.id)) report(identifier);
      },
      FunctionDeclaration: functionLike,
      FunctionExpression: (node) => {
        // A method's function carries no name of its own; its key is the property's.
        if (!oneLine(node) || node.parent.type !== 'Property') functionLike(node);
      },
      ArrowFunctionExpression: functionLike,
      CatchClause: (node) => {
        for (const identifier of bound(node.param)) report(identifier);
      },
      ClassDeclaration: (node) => node.id && report(node.id),
      TSTypeAliasDeclaration: (node) => report(node.id),
      TSInterfaceDeclaration: (node) => report(node.id),
    };
  },
};
