# syntax=docker/dockerfile:1
# The production image. It runs the API by default; docker-compose.yml runs the same image
# as the one-shot migration step and as the webhook worker with another command.
#   docker build -t commerce-operations-api .

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# compile src/ and migrations/ into dist/, then drop the dev dependencies
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# served at /docs/changelog
COPY --from=build /app/CHANGELOG.md ./
# The files stay root-owned and read-only to the service; only the embedded database's
# folder (used when DATABASE_URL is unset: demos only) is writable.
RUN mkdir .data && chown node:node .data
USER node
EXPOSE 3000
# Plain HTTP on loopback: adjust if TLS_CERT_FILE/TLS_KEY_FILE make the server speak HTTPS.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health/live`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The command of `npm run start:prod`, with its V8 flags (test/start-command.test.ts holds
# the two equal): a young generation of 32 MB semi-spaces, and no allocation-site
# pretenuring (docs/operations.md, Performance, says why). node, not npm, so that SIGTERM
# reaches the API itself.
CMD ["node", "--max-semi-space-size=32", "--no-allocation-site-pretenuring", "dist/main.js"]
