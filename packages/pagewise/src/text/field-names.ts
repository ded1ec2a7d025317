/**
 * Names of JSON fields by what they hold (an id, a label, an error), matched the one way: the whole name is one
 * of a family's names, or it ends with one of its endings (`order_id`, `userId`, `product_name`).
 */

/**
 * An expression for a family of field names: a name that is one of `names`, or that ends with one of `endings`.
 * Each entry is an alternative of the expression (`errors?` is `error` and `errors`); `flags` as `new RegExp`'s.
 *
 * @example
 * fieldNamePattern(['name', 'title'], ['_name', 'Name']).test('productName'); // true
 */
export function fieldNamePattern(names: readonly string[], endings: readonly string[] = [], flags = 'u'): RegExp {
  const whole = `^(?:${names.join('|')})$`;
  return new RegExp(endings.length === 0 ? whole : `${whole}|(?:${endings.join('|')})$`, flags);
}
