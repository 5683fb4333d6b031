import { pino } from 'pino';
import { keepServingAfterEscapedFailures } from '../../../../src/main.js';

// Run as its own process by escaped-failures.test.ts: one failure of each kind escapes, then the process
// shows it is still running. Timers of equal delay run in order, so the last one runs after the throw.
const logger = pino({ base: undefined, timestamp: false });
keepServingAfterEscapedFailures(process, logger);
setTimeout(() => {
  throw new Error('thrown from a timer');
}, 0);
void Promise.reject(new Error('rejected with nobody waiting'));
setTimeout(() => {
  logger.info('still running');
}, 0);
