import { postgresEngine } from './postgres-engine.js';
import { describeSeedRegressions } from './seed-regressions.flows.js';

describeSeedRegressions(postgresEngine);
