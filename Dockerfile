# syntax=docker/dockerfile:1
# One image for both process kinds: the API (default command) and the BullMQ workers
# (docker-compose.yml overrides the command with workers/main.ts). TypeScript runs through tsx,
# which is a runtime dependency, so no build step and no dev dependencies are needed.
FROM node:24-bookworm-slim

# chromium: PDF rendering through puppeteer-core (Debian's build; no browser download at install).
# git: operators' tooling and parity with the CI machine (isomorphic-git itself needs no binary).
# fonts-dejavu-core: at least one font so Chromium can lay out text.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium git ca-certificates fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first so the layer is cached until the lockfile changes.
COPY package.json package-lock.json ./
# `npm install` honours the lockfile; `npm ci` would refuse it for optional packages it cannot list.
RUN npm install --omit=dev --no-audit --no-fund \
 && npm cache clean --force

COPY tsconfig.json ./
COPY src ./src
COPY jobs ./jobs
COPY workers ./workers

# The code stays root-owned (read-only for the app); only the local blob folder (used when
# S3_BUCKET is unset, LOCAL_STORAGE_DIR defaults to ./data/blobs) is writable by the app user.
RUN mkdir -p /app/data/blobs && chown -R node:node /app/data

ENV NODE_ENV=production \
    CHROMIUM_PATH=/usr/bin/chromium \
    PORT=3000

USER node

EXPOSE 3000

# Liveness of the API process (slim images have no curl). Worker containers disable it in compose.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]

# `node --import tsx` (rather than `npx tsx`) keeps a single process, so SIGTERM from
# `docker stop` reaches the app's own graceful-shutdown handler directly.
CMD ["node", "--import", "tsx", "src/api.ts"]
