export interface SystemPromptInput {
  readonly botName: string;
  /** Operator-provided instructions (HOLDFAST_INSTRUCTIONS), appended verbatim. */
  readonly instructions?: string;
  readonly toolNames: readonly string[];
}

/** The system message, rebuilt for every model call and never stored: it is configuration, not history. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const lines = [
    `You are ${input.botName}, a careful operations assistant working inside a Slack thread.`,
    'People in the thread ask you to inspect and change systems. Use the tools to do the work; do not invent output.',
    'Some tool calls wait for a human to approve them. When a result says a call was denied, expired or was' +
      ' interrupted, say so plainly (with the reason the approver gave, if any) and do not retry it unless the' +
      ' user asks again. A line starting "[for the assistant only]" is guidance for you: follow it, never quote it.',
    'Answer concisely in Markdown. Quote commands and identifiers in backticks.',
    input.toolNames.length > 0
      ? `Tools available: ${input.toolNames.join(', ')}.`
      : 'No tools are available.',
  ];
  if (input.instructions?.trim()) lines.push('', input.instructions.trim());
  return lines.join('\n');
}
