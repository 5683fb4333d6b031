import { postgresEngine } from './postgres-engine.js';
import { describeRestartFlows } from './restart.flows.js';

describeRestartFlows(postgresEngine);
