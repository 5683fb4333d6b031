export { describeModelEndpoint, modelEndpointHost, OPENAI_BASE_URL_DEFAULT } from './model-endpoint.js';
export {
  ModelAuthError,
  ModelBadRequestError,
  ModelError,
  ModelNotFoundError,
  ModelRateLimitedError,
  ModelRequestAbortedError,
  ModelResponseInvalidError,
  ModelTimeoutError,
  ModelUnavailableError,
  ModelUnreachableError,
  type ProviderDetails,
} from './model-errors.js';
export { createOpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';
export { reply, ScriptExhaustedError, ScriptedChatModel, type ScriptedStep } from './scripted-chat-model.js';
