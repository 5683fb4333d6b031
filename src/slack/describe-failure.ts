/** What the thread is told when a turn fails, by error code: short, clear, and never the raw error. */
export function describeFailure(code: string): string {
  switch (code) {
    case 'model_rate_limited':
      return 'the model is rate limited right now. Send your message again in a minute.';
    case 'model_unavailable':
    case 'model_timeout':
      return 'the model did not answer (it is unavailable or timed out). Send your message again shortly.';
    case 'model_auth_failed':
      return 'holdfast could not authenticate with the model provider. An admin needs to check OPENAI_API_KEY.';
    case 'model_bad_request':
    case 'model_response_invalid':
    case 'empty_model_reply':
      return 'the model returned something holdfast could not use. Try rephrasing the request.';
    case 'turn_budget_exceeded':
      return 'the request needed more model calls than one request may use, so holdfast stopped. Try a narrower request.';
    case 'max_steps_exceeded':
      return 'the task took too many steps without an answer, so holdfast stopped. Try a narrower request.';
    case 'store_busy':
      return 'the database was busy and nothing was changed. Send your message again.';
    default:
      return `the turn failed (${code}). The details are in holdfast's logs.`;
  }
}
