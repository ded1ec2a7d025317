import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, PagewiseError } from '../errors.js';
import { DEFAULT_HISTORY_GUIDELINE, DEFAULT_OBSERVATION_GUIDELINE } from './default-guidelines.js';
import { formatGuideline, loadGuideline, parseGuideline, placeholdersOf, renderGuideline } from './guideline.js';
import { DEFAULT_HISTORY_RULES, DEFAULT_OBSERVATION_RULES, parseExtractiveRules } from './rules.js';

function file(target: string, body: string, front = ''): string {
  return `---\nid: test-guideline\nversion: 2\ntarget: ${target}\n${front}---\n${body}`;
}

function errorOf(run: () => unknown): PagewiseError {
  try {
    run();
  } catch (error) {
    if (PagewiseError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a PagewiseError');
}

describe('parseGuideline', () => {
  it('reads front matter, template and rules', () => {
    const guideline = parseGuideline(
      file(
        'observation',
        'Task: {{ task }}\nKeep from {{observation}} at most {{max_tokens}} tokens.\n\n```rules json\n{ "ratio": 0.3, "keepPatterns": ["^status:"] }\n```\n',
        'description: "for tests"\n',
      ),
      'obs.md',
    );
    expect(guideline).toMatchObject({
      id: 'test-guideline',
      version: 2,
      target: 'observation',
      description: 'for tests',
    });
    expect(guideline.template).toBe('Task: {{ task }}\nKeep from {{observation}} at most {{max_tokens}} tokens.');
    // Omitted rule fields come from the target's defaults.
    expect(guideline.rules).toEqual({ ...DEFAULT_OBSERVATION_RULES, ratio: 0.3, keepPatterns: ['^status:'] });
    expect(placeholdersOf(guideline.template)).toEqual(['task', 'observation', 'max_tokens']);
  });

  it('uses the target default rules when there is no rules block', () => {
    const guideline = parseGuideline(file('history', 'Summarize {{history}} in {{max_tokens}} tokens.'), 'h.md');
    expect(guideline.rules).toEqual(DEFAULT_HISTORY_RULES);
    expect(guideline.rules).not.toBe(DEFAULT_HISTORY_RULES);
  });

  it('reads "```rules" with or without "json" as a rules block, and no other fence', () => {
    for (const fence of ['```rules', '```rules json', '```rules \t json  ', '```rules  ']) {
      const guideline = parseGuideline(
        file('history', `{{history}} {{max_tokens}}\n${fence}\n{ "ratio": 0.2 }\n\`\`\``),
        'h.md',
      );
      expect(guideline.rules.ratio, fence).toBe(0.2);
      expect(guideline.template, fence).toBe('{{history}} {{max_tokens}}');
    }
    for (const fence of ['```rulesjson', '```rules yaml', ' ```rules', '```json']) {
      const guideline = parseGuideline(file('history', `{{history}} {{max_tokens}}\n${fence}\n{}\n\`\`\``), 'h.md');
      expect(guideline.rules, fence).toEqual(DEFAULT_HISTORY_RULES);
      expect(guideline.template, fence).toContain(fence);
    }
  });

  it('names a missing required placeholder, the file and the target line', () => {
    const error = errorOf(() => parseGuideline(file('observation', 'Keep {{observation}} short.'), 'obs.md'));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.code).toBe('missing-placeholder');
    expect(error.message).toContain('{{max_tokens}}');
    expect(error.message).toContain('obs.md:4');
  });

  it('requires {{history}} in a history guideline', () => {
    const error = errorOf(() => parseGuideline(file('history', 'In {{max_tokens}} tokens.'), 'h.md'));
    expect(error.message).toMatch(/h\.md:4: .*\{\{history\}\}/u);
  });

  it('names an unknown placeholder with its file and line', () => {
    const error = errorOf(() =>
      parseGuideline(file('observation', 'Line one.\n{{observation}} {{max_tokens}}\nUse {{tsak}} here.'), 'obs.md'),
    );
    expect(error.code).toBe('unknown-placeholder');
    expect(error.message).toContain('{{tsak}}');
    expect(error.message).toContain('obs.md:8');
  });

  it('refuses {{previous_summary}} in an observation guideline', () => {
    const error = errorOf(() =>
      parseGuideline(file('observation', '{{observation}}\n{{max_tokens}}\nBefore: {{previous_summary}}'), 'obs.md'),
    );
    expect(error.code).toBe('misplaced-placeholder');
    expect(error.message).toContain('{{previous_summary}}');
    expect(error.message).toContain('obs.md:8');
  });

  it('refuses {{observation}} in a history guideline', () => {
    const error = errorOf(() => parseGuideline(file('history', '{{history}} {{max_tokens}} {{observation}}'), 'h.md'));
    expect(error.message).toContain('{{observation}}');
    expect(error.message).toContain('h.md:6');
  });

  it('refuses a placeholder that is not closed', () => {
    const error = errorOf(() => parseGuideline(file('history', '{{history}} {{max_tokens}}\n{{task'), 'h.md'));
    expect(error.code).toBe('unclosed-placeholder');
    expect(error.message).toContain('h.md:7');
  });

  it('ignores braces inside the rules block', () => {
    const guideline = parseGuideline(
      file('history', '{{history}} {{max_tokens}}\n```rules json\n{ "keepPatterns": ["\\\\d{4}"] }\n```'),
      'h.md',
    );
    expect(guideline.rules.keepPatterns).toEqual(['\\d{4}']);
  });

  it.each([
    ['no front matter', 'Just {{observation}} {{max_tokens}}', 'g.md:1', /front matter block/u],
    ['unclosed front matter', '---\nid: a\nversion: 1\ntarget: observation\n', 'g.md:1', /not closed/u],
    [
      'front matter running into the template',
      '---\nid: a\nversion: 1\ntarget: observation\n{{observation}}',
      'g.md:5',
      /closing '---' line is missing/u,
    ],
    [
      'missing id',
      '---\nversion: 1\ntarget: observation\n---\n{{observation}} {{max_tokens}}',
      'g.md:1',
      /no "id" line/u,
    ],
    [
      'id starting with an underscore',
      '---\nid: _a\nversion: 1\ntarget: observation\n---\n{{observation}} {{max_tokens}}',
      'g.md:2',
      /id "_a" must be letters/u,
    ],
    [
      'id with a space',
      '---\nid: a b\nversion: 1\ntarget: observation\n---\n{{observation}} {{max_tokens}}',
      'g.md:2',
      /id "a b" must be letters/u,
    ],
    [
      'bad version',
      '---\nid: a\nversion: one\ntarget: observation\n---\n{{observation}} {{max_tokens}}',
      'g.md:3',
      /version "one"/u,
    ],
    [
      'bad target',
      '---\nid: a\nversion: 1\ntarget: summary\n---\n{{observation}} {{max_tokens}}',
      'g.md:4',
      /target "summary"/u,
    ],
    [
      'unknown key',
      '---\nid: a\nversion: 1\ntarget: history\nratio: 0.5\n---\n{{history}} {{max_tokens}}',
      'g.md:5',
      /unknown front matter key "ratio"/u,
    ],
    [
      'duplicate key',
      '---\nid: a\nid: b\nversion: 1\ntarget: history\n---\n{{history}} {{max_tokens}}',
      'g.md:3',
      /set twice/u,
    ],
    [
      'not key: value',
      '---\nid: a\nversion 1\ntarget: history\n---\n{{history}} {{max_tokens}}',
      'g.md:3',
      /not "key: value"/u,
    ],
  ])('refuses a bad front matter: %s', (_name, text, where, message) => {
    const error = errorOf(() => parseGuideline(text, 'g.md'));
    expect(error.code).toBe('invalid-guideline');
    expect(error.message).toContain(where);
    expect(error.message).toMatch(message);
  });

  it('names a bad regex, its field and its line', () => {
    const text = file(
      'observation',
      '{{observation}} {{max_tokens}}\n\n```rules json\n{\n  "keepPatterns": ["ok",\n    "(unclosed"]\n}\n```',
    );
    const error = errorOf(() => parseGuideline(text, 'obs.md'));
    expect(error.code).toBe('invalid-rule-pattern');
    expect(error.message).toContain('keepPatterns[1]');
    expect(error.message).toContain('/(unclosed/');
    expect(error.message).toContain('obs.md:11');
  });

  it('names bad rules JSON and out-of-range fields with a line', () => {
    const badJson = errorOf(() =>
      parseGuideline(file('history', '{{history}} {{max_tokens}}\n```rules json\n{\n "ratio": 0.3,\n}\n```'), 'h.md'),
    );
    expect(badJson.message).toMatch(/^h\.md:10: the rules block is not valid JSON/u);
    const badRatio = errorOf(() =>
      parseGuideline(file('history', '{{history}} {{max_tokens}}\n```rules json\n{ "ratio": 1.5 }\n```'), 'h.md'),
    );
    expect(badRatio.message).toMatch(/h\.md:8: .*"ratio"/u);
    const unknownField = errorOf(() =>
      parseGuideline(file('history', '{{history}} {{max_tokens}}\n```rules json\n{ "ration": 0.5 }\n```'), 'h.md'),
    );
    expect(unknownField.code).toBe('invalid-extractive-rules');
  });

  it('refuses two rules blocks and an unclosed one', () => {
    const two = '{{history}} {{max_tokens}}\n```rules json\n{}\n```\n```rules json\n{}\n```';
    expect(errorOf(() => parseGuideline(file('history', two), 'h.md')).message).toMatch(
      /h\.md:10: a second rules block/u,
    );
    expect(
      errorOf(() => parseGuideline(file('history', '{{history}} {{max_tokens}}\n```rules json\n{}'), 'h.md')).message,
    ).toMatch(/h\.md:7: the rules block is not closed/u);
  });
});

describe('renderGuideline', () => {
  it('fills every placeholder of the default guidelines', () => {
    const history = renderGuideline(DEFAULT_HISTORY_GUIDELINE, {
      task: 'TASK',
      previous_summary: 'PREV',
      history: 'HIST',
      max_tokens: 512,
    });
    expect(history).not.toMatch(/\{\{|\}\}/u);
    for (const value of ['TASK', 'PREV', 'HIST', '512']) expect(history).toContain(value);
    const observation = renderGuideline(DEFAULT_OBSERVATION_GUIDELINE, {
      task: 'TASK',
      history: 'HIST',
      observation: 'OBS',
      max_tokens: 300,
    });
    expect(observation).not.toMatch(/\{\{|\}\}/u);
    for (const value of ['TASK', 'HIST', 'OBS', '300']) expect(observation).toContain(value);
  });

  it('fills repeated placeholders and does not expand placeholders inside values', () => {
    const guideline = parseGuideline(
      file('observation', '{{observation}} / {{ observation }} / {{max_tokens}}'),
      'g.md',
    );
    expect(renderGuideline(guideline, { observation: 'has {{task}} and $& inside', max_tokens: 0 })).toBe(
      'has {{task}} and $& inside / has {{task}} and $& inside / 0',
    );
  });

  it('names the placeholder that has no value', () => {
    const error = errorOf(() =>
      renderGuideline(DEFAULT_HISTORY_GUIDELINE, { task: 't', history: 'h', max_tokens: 10 }),
    );
    expect(error.code).toBe('missing-guideline-value');
    expect(error.message).toContain('{{previous_summary}}');
    expect(error.message).toContain('history-default');
  });

  it('accepts an empty string as a value', () => {
    expect(() =>
      renderGuideline(DEFAULT_HISTORY_GUIDELINE, { task: '', previous_summary: '', history: '', max_tokens: 1 }),
    ).not.toThrow();
  });
});

describe('default guidelines', () => {
  it('hold the ACON-style sections and the target default rules', () => {
    for (const section of ['Reasoning so far', 'Runtime values', 'To do', 'Completed', 'Guardrails']) {
      expect(DEFAULT_HISTORY_GUIDELINE.template).toContain(section);
    }
    expect(DEFAULT_HISTORY_GUIDELINE.template).toMatch(/\| name \| value \|/u);
    expect(DEFAULT_OBSERVATION_GUIDELINE.template).toMatch(/identifier, number/u);
    expect(DEFAULT_HISTORY_GUIDELINE.rules).toBe(DEFAULT_HISTORY_RULES);
    expect(DEFAULT_OBSERVATION_GUIDELINE.rules).toBe(DEFAULT_OBSERVATION_RULES);
  });

  it('cannot be edited in place', () => {
    expect(() => {
      (DEFAULT_OBSERVATION_RULES.keepPatterns as string[]).push('x');
    }).toThrow();
    expect(() => {
      (DEFAULT_OBSERVATION_GUIDELINE.rules.alwaysKeep as { numbers: boolean }).numbers = false;
    }).toThrow();
  });

  it('round-trip through formatGuideline', () => {
    for (const guideline of [DEFAULT_HISTORY_GUIDELINE, DEFAULT_OBSERVATION_GUIDELINE]) {
      expect(parseGuideline(formatGuideline(guideline), 'round-trip.md')).toEqual({
        ...guideline,
        rules: { ...guideline.rules },
      });
    }
  });
});

describe('loadGuideline', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pagewise-guideline-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a file and names it in errors', async () => {
    const good = path.join(dir, 'good.md');
    await writeFile(good, formatGuideline(DEFAULT_OBSERVATION_GUIDELINE));
    expect((await loadGuideline(good)).id).toBe('observation-default');
    const bad = path.join(dir, 'bad.md');
    await writeFile(bad, file('observation', '{{observation}} {{max_tokens}} {{nope}}'));
    await expect(loadGuideline(bad)).rejects.toThrow(`${bad}:6: unknown placeholder {{nope}}`);
  });

  it('reports a missing file', async () => {
    await expect(loadGuideline(path.join(dir, 'missing.md'))).rejects.toThrow(/was not found/u);
  });
});

describe('parseExtractiveRules', () => {
  it('rejects a bad dropPatterns regex with the field', () => {
    const error = errorOf(() =>
      parseExtractiveRules({ ...DEFAULT_OBSERVATION_RULES, dropPatterns: ['[a-'] }, { source: 'cli --rules' }),
    );
    expect(error.message).toMatch(/^cli --rules: invalid regular expression in dropPatterns\[0\]/u);
  });

  it('is JSON-serializable', () => {
    expect(parseExtractiveRules(JSON.parse(JSON.stringify(DEFAULT_HISTORY_RULES)))).toEqual(DEFAULT_HISTORY_RULES);
  });
});
