import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definitionOf } from './tool-execution.js';
import { tool } from './tool.js';

describe('definitionOf: the tool declaration the model sees', () => {
  const search = tool({
    name: 'search',
    description: 'Search the reports.',
    inputSchema: z.object({
      query: z.string(),
      limit: z.number().int().default(5),
      filter: z.object({ region: z.string().optional() }).optional(),
      extra: z.looseObject({ note: z.string() }).optional(),
    }),
    execute: ({ limit }) => `limit ${limit}`,
  });

  it('lists a field with a default as optional, since the model may leave it out', () => {
    const schema = definitionOf(search).inputSchema as { required?: string[]; properties: Record<string, unknown> };
    expect(schema.required).toEqual(['query']);
    expect(schema.properties.limit).toMatchObject({ type: 'integer', default: 5 });
    expect(search.inputSchema.parse({ query: 'x' })).toEqual({ query: 'x', limit: 5 });
  });

  it('closes every object the schema does not open, and writes no $schema', () => {
    const schema = definitionOf(search).inputSchema as Record<string, unknown> & {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.$schema).toBeUndefined();
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.filter!.additionalProperties).toBe(false);
    // A loose object stays open, as its schema says.
    expect(schema.properties.extra!.additionalProperties).toEqual({});
  });
});
