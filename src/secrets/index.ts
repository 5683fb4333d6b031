export {
  type ConfiguredSecret,
  createRedactor,
  DEFAULT_MINIMUM_SECRET_LENGTH,
  type Redact,
  type RedactOptions,
  type Redactor,
  type RedactorOptions,
  redactKnownPatterns,
} from './create-redactor.js';
export { redactStrings } from './redact-strings.js';
export { redactingLogger } from './redacting-logger.js';
export { isSecretVariableName } from './secret-patterns.js';
