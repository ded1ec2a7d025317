import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRetailPrompt, parseRetailPrompt, RETAIL_TEMPLATES, type RetailRequest } from './prompts.js';

const word = fc.stringMatching(/^[A-Z][a-z]{1,10}$/);
const customer = fc.record({ firstName: word, lastName: word, zip: fc.stringMatching(/^\d{5}$/) });

describe('retail prompts', () => {
  it('parses back every request it writes', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RETAIL_TEMPLATES),
        fc.array(customer, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('Laptop', 'T-Shirt', 'LED Light Bulb'),
        (template, customers, productName) => {
          const request: RetailRequest =
            template === 'delivered-product-spend' ? { template, customers, productName } : { template, customers };
          expect(parseRetailPrompt(formatRetailPrompt(request))).toEqual(request);
        },
      ),
    );
  });

  it('returns undefined for other text', () => {
    expect(parseRetailPrompt('What is the capital of France?')).toBeUndefined();
    expect(parseRetailPrompt('Look up these customers by name and zip code: nobody.\nQuestion: why?')).toBeUndefined();
  });
});
