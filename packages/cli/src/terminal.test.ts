import { describe, expect, it } from 'vitest';
import { terminalSafe } from './terminal.js';

describe('terminalSafe', () => {
  it('removes OSC 52 clipboard writes, colours, cursor moves and title changes', () => {
    const text = 'a\u001b]52;c;ZXZpbA==\u0007b\u001b[31mc\u001b[2J\u001b]0;title\u001b\\d\u009b1;2He';
    expect(terminalSafe(text)).toBe('abcde');
  });

  it('keeps newlines and tabs, and shows other controls and bidi overrides as a replacement character', () => {
    expect(terminalSafe('x\ty\nz\u0008\u202e')).toBe('x\ty\nz\uFFFD\uFFFD');
  });
});
