import type { DeployService } from '../tools/deploy.js';

type DeployServices = Readonly<Record<string, DeployService>>;

/**
 * Local mode with nothing configured gets harmless demo services, so "deploy api" shows the deploy
 * approval (its own permission type) without touching anything real.
 */
export function demoDeployServices(mode: string, configured: DeployServices): DeployServices {
  if (mode !== 'local' || Object.keys(configured).length > 0) return configured;
  const demo = (service: string) => ({
    command: `echo "deploying ${service} at \${HOLDFAST_DEPLOY_REF:-main} (demo: nothing was changed)"`,
  });
  return { api: demo('api'), web: demo('web') };
}
