import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { PersonAnswer, PersonQuestion } from '../agent/person-question.js';

/**
 * A server's elicitation as a question for the requester. The server's words are redacted (they reach a
 * thread); a link keeps only what the person needs to open it.
 */
export function questionFrom(
  server: string,
  request: ElicitRequest['params'],
  redact: (text: string) => string,
): PersonQuestion {
  const message = redact(request.message);
  if (request.mode === 'url') return { kind: 'link', askedBy: server, message, url: request.url };
  const { type, properties, required } = request.requestedSchema;
  return {
    kind: 'form',
    askedBy: server,
    message,
    schema: { type, properties, ...(required ? { required } : {}) },
  };
}

/** The requester's answer as the protocol's result: a form's values, a link visited, a no, or nothing. */
export function elicitResultOf(answer: PersonAnswer, question: PersonQuestion): ElicitResult {
  switch (answer.type) {
    case 'answered':
      return question.kind === 'form'
        ? { action: 'accept', content: answer.content as ElicitResult['content'] }
        : { action: 'accept' };
    case 'declined':
      return { action: 'decline' };
    case 'unanswered':
      return { action: 'cancel' };
  }
}
