import { sqliteEngine } from './core-harness.js';
import { describeSeedRegressions } from './seed-regressions.flows.js';

describeSeedRegressions(sqliteEngine);
