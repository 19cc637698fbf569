# One image for both processes: web and worker share the workspace and differ only in command.
FROM node:24-bookworm-slim AS base
ENV NEXT_TELEMETRY_DISABLED=1 NODE_ENV=production
WORKDIR /app

FROM base AS build
ENV NODE_ENV=development
COPY . .
RUN npm ci --no-audit --no-fund && npm run build

FROM base AS runtime
COPY --from=build /app /app
EXPOSE 3000
CMD ["npm", "run", "start:web"]
