# holdfast: docker build -t holdfast . && docker run --env-file holdfast.env -v holdfast-data:/data holdfast
# The steps are the scripts CI runs (.ci/run): npm ci, npm run build.

# Build: every dependency, then compile TypeScript to dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary; these let it compile one where none is published.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build
# The same lock file, production dependencies only, for the runtime stage.
RUN npm ci --omit=dev

# Runtime: compiled JavaScript run by node itself, so the platform's SIGTERM reaches holdfast, which
# stops taking requests, lets running turns finish and closes the database before it exits.
FROM node:20-bookworm-slim
# tini as PID 1 reaps processes that commands run by tools leave behind, and passes signals on.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    HOLDFAST_DB=/data/holdfast.db \
    HOLDFAST_WORKDIR=/data/workspace \
    PORT=3000
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY manifest.yml ./
# The database (and pending approvals with it) lives on the volume, owned by the unprivileged user.
RUN mkdir -p /data/workspace && chown -R node:node /data
VOLUME ["/data"]
USER node
# 3000: Slack events, /health, /ready and /metrics in HTTP mode. 3001: /health, /ready and /metrics in
# Socket Mode (HOLDFAST_HEALTH_PORT).
EXPOSE 3000 3001
# Liveness only (/health): readiness (/ready) also asks Slack, and a Slack outage is no reason to restart.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const e = process.env; const port = e.HOLDFAST_HEALTH_PORT || (e.SLACK_APP_TOKEN || e.SLACK_APP_TOKEN_FILE ? 3001 : e.PORT || 3000); fetch(`http://127.0.0.1:${port}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
