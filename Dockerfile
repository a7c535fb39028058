# Gatehouse: build once, run anywhere Node 20 runs. See README "Production".
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts tsconfig.json tsconfig.build.json nest-cli.json ./
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY src ./src
COPY widget ./widget
COPY dashboard ./dashboard
# The dashboard's guide page bundles docs/PROTECT-A-FORM.md; scripts/build.js runs the build's steps.
COPY docs/PROTECT-A-FORM.md ./docs/
COPY scripts/build.js ./scripts/
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
# At most two glibc malloc arenas, as start:prod sets (docs/DECISIONS.md, "Memory footprint").
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json prisma.config.ts ./
COPY prisma ./prisma
USER node
EXPOSE 3000
# The flags are start:prod's (package.json; docs/DECISIONS.md, "Young generation" and "Memory footprint").
CMD ["node", "--max-semi-space-size=8", "--no-allocation-site-pretenuring", "--liftoff-only", "dist/main.js"]
