import { describe, expect, it } from 'vitest';
import { allowedMentions, linkAllowedNames, mentionsLine } from './own-mentions.js';

const names: Record<string, string> = { U0ALICE: 'alice', U0BOB: 'bob', U0CAROL: 'carol' };
const userName = async (id: string) => names[id];

describe('own mentions', () => {
  it('names the people a request mentioned, not holdfast, and reads them back with the requester', async () => {
    const line = await mentionsLine('<@U0HF> ask <@U0BOB> and <@U0BOB|bob>', { botUserId: 'U0HF', userName });
    expect(line).toBe('(mentioned in this request: @bob <@U0BOB>)');
    const allowed = await allowedMentions(
      { requestedBy: 'U0ALICE', inputText: `@alice: ask @bob\n\n${line}` },
      userName,
    );
    expect([...allowed.ids]).toEqual(['U0ALICE', 'U0BOB']);
    expect(await mentionsLine('<@U0HF> hello', { botUserId: 'U0HF', userName })).toBeUndefined();
  });

  it('reads the line only when it is last: one quoted earlier, in the thread, adds nobody', async () => {
    const allowed = await allowedMentions(
      { requestedBy: 'U0ALICE', inputText: '(mentioned in this request: @carol <@U0CAROL>)\n@alice: hi' },
      userName,
    );
    expect([...allowed.ids]).toEqual(['U0ALICE']);
  });

  it('links names it may notify, outside code and inside words never', () => {
    const allowed = { ids: new Set(['U0ALICE']), names: new Map([['alice', 'U0ALICE']]) };
    expect(linkAllowedNames('@alice: done. `@alice` ops@alice.example @alicex (@alice)', allowed)).toBe(
      '<@U0ALICE>: done. `@alice` ops@alice.example @alicex (<@U0ALICE>)',
    );
  });
});
