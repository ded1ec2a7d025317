/**
 * One-call compression, no agent and no key: a report page with a table compressed against a question,
 * then a long AI SDK conversation compressed to half its tokens before it is sent to a model.
 * npx tsx examples/compress-one-call.ts
 */
import type { ModelMessage } from 'ai';
// The root entry (`pagewise`) is to export these too; until then, from the module itself.
import { compressMessages, compressText } from 'pagewise/compression';

const page = `# Results for fiscal 2024

Net sales rose 6.8% to 482.3 billion yen. Growth came mainly from frozen foods.

| Segment | FY2023 | FY2024 |
| --- | --- | --- |
| Frozen foods | 158.2 | 176.9 |
| Seasonings | 121.4 | 124.0 |
| Overseas | 73.5 | 84.3 |

The company opened a factory in Ho Chi Minh City in October 2024. Overseas sales grew in Thailand and Vietnam.
The annual dividend will be raised to 62 yen per share. The number of employees was 9,860.`;

const text = await compressText(page, { query: 'What were overseas sales in FY2024?', targetRatio: 0.5 });
console.log(`compressText: ${text.inputTokens} → ${text.outputTokens} tokens (ratio ${text.ratio.toFixed(2)})\n`);
console.log(text.text);

// A long conversation: a fact early on, much small talk, a tool call with its result, then a question.
const messages: ModelMessage[] = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'My sister Maya moved to Porto last spring. She works as a pilot.' },
  { role: 'assistant', content: 'Thanks for telling me about Maya.' },
];
for (let day = 1; day <= 40; day += 1) {
  messages.push({ role: 'user', content: `Day ${day}: the train was late again and it rained all afternoon.` });
  messages.push({ role: 'assistant', content: 'That sounds tiring. I hope tomorrow is calmer.' });
}
messages.push(
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'weather', input: { city: 'Porto' } }],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'w1',
        toolName: 'weather',
        output: { type: 'text', value: 'Porto: sunny, 21°C' },
      },
    ],
  },
  { role: 'user', content: 'Which city does Maya live in, and what is the weather there?' },
);

const compact = await compressMessages(messages, { task: 'Answer the user.', targetRatio: 0.5, keepLastTurns: 2 });
console.log(
  `\ncompressMessages: ${messages.length} messages, ${compact.inputTokens} tokens → ${compact.messages.length} messages, ` +
    `${compact.outputTokens} tokens (ratio ${compact.ratio.toFixed(2)}); ${compact.compressedTurns} turns summarized`,
);
console.log(compact.summary.split('\n').slice(0, 3).join('\n'));
// The tool call and its result are still a pair; pass `compact.messages` to generateText/streamText.
