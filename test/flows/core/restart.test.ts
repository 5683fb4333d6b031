import { sqliteEngine } from './core-harness.js';
import { describeRestartFlows } from './restart.flows.js';

describeRestartFlows(sqliteEngine);
