# syntax=docker/dockerfile:1
# svc: one image for both roles (ROLE=api | worker | all). Node 24 LTS: Express runs ~3x faster there.

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/npm-ci.sh ./scripts/
RUN bash scripts/npm-ci.sh
COPY tsconfig.json tsconfig.build.json nest-cli.json openapi.json ./
COPY scripts/openapi.js scripts/console-size.js ./scripts/
COPY src ./src
COPY console ./console
# The service, then the web console (checks openapi.json and the console's client are current).
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-slim
# glibc's allocator as `npm start` sets it: see docs/operations.md (Node options).
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data \
    MALLOC_TRIM_THRESHOLD_=131072 \
    MALLOC_MMAP_THRESHOLD_=4194304
WORKDIR /app
RUN mkdir -p /data && chown node:node /data
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/console/dist ./console/dist
USER node
VOLUME ["/data"]
EXPOSE 3000
# Liveness; docker-compose checks readiness (/health/ready) on the api.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Administration inside the container: node dist/cli/main.js <command> (npm run cli needs the sources).
# Node options as in `npm start`: see docs/operations.md (Node options).
CMD ["node", "--max-semi-space-size=32", "--expose-gc", "dist/main.js"]
