import { describe, expect, it } from 'vitest';
import { didYouMean } from './did-you-mean.js';

const tools = [
  'run_shell',
  'http_request',
  'read_file',
  'list_files',
  'sql_query',
  'deploy',
  'shell',
  'http',
];

describe('didYouMean', () => {
  it.each([
    ['run_shel', 'run_shell'],
    ['rnu_shell', 'run_shell'],
    ['Run_Shell', 'run_shell'],
    ['shel', 'shell'],
    ['deplyo', 'deploy'],
    ['htp', 'http'],
  ])('suggests %s → %s', (typo, meant) => {
    expect(didYouMean(typo, tools)).toBe(meant);
  });

  it('suggests nothing when no name is close', () => {
    expect(didYouMean('kubectl', tools)).toBeUndefined();
    expect(didYouMean('sql', tools)).toBeUndefined();
  });
});
