export {
  ModelAuthError,
  ModelBadRequestError,
  ModelError,
  ModelRateLimitedError,
  ModelRequestAbortedError,
  ModelResponseInvalidError,
  ModelTimeoutError,
  ModelUnavailableError,
  type ProviderDetails,
} from './model-errors.js';
export { createOpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';
export { reply, ScriptExhaustedError, ScriptedChatModel, type ScriptedStep } from './scripted-chat-model.js';
