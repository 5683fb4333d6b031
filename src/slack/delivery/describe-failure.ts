/** A failed turn as recorded: its error code and the error's own message. */
export interface TurnFailure {
  readonly code: string;
  readonly message: string;
}

/**
 * What the thread is told when a turn fails, by error code: short, clear, and what to do next. The raw
 * error stays in the logs; only errors whose message holdfast writes from its own configuration (the model
 * name, the endpoint without credentials) are shown as they are.
 */
export function describeFailure({ code, message }: TurnFailure): string {
  switch (code) {
    case 'model_rate_limited':
      return 'the model is rate limited right now. Send your message again in a minute.';
    case 'model_unavailable':
    case 'model_timeout':
      return 'the model did not answer (it is unavailable or timed out). Send your message again shortly.';
    case 'model_unreachable':
      return `${lowerFirst(message)}. An admin needs to check OPENAI_BASE_URL and the network; send your message again once it is fixed.`;
    case 'model_not_found':
      return `${lowerFirst(message)}. An admin needs to set OPENAI_MODEL to a model it serves (or fix OPENAI_BASE_URL).`;
    case 'model_auth_failed':
      return 'holdfast could not authenticate with the model provider. An admin needs to check OPENAI_API_KEY.';
    case 'model_bad_request':
      return "the model provider refused holdfast's request. An admin can find the provider's reason in holdfast's logs.";
    case 'model_response_invalid':
    case 'empty_model_reply':
      return 'the model returned something holdfast could not use. Try rephrasing the request.';
    case 'turn_budget_exceeded':
      return 'the request needed more model calls than one request may use, so holdfast stopped. Try a narrower request.';
    case 'max_steps_exceeded':
      return 'the task took too many steps without an answer, so holdfast stopped. Try a narrower request.';
    case 'turn_stopped':
      // Who stopped it is told in the stop's own notice, which names them.
      return 'someone stopped it.';
    case 'store_busy':
      return 'the database was busy and nothing was changed. Send your message again.';
    default:
      return `the turn failed (${code}). The details are in holdfast's logs.`;
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
