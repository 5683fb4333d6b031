import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BOT_SCOPES } from './bot-scopes.js';

describe('BOT_SCOPES', () => {
  it('is exactly the bot scopes manifest.yml grants, which start-up checks the token for', () => {
    const manifest = parse(
      fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', '..', 'manifest.yml'), 'utf8'),
    );
    expect([...BOT_SCOPES].sort()).toEqual([...manifest.oauth_config.scopes.bot].sort());
  });
});
