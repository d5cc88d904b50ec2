# Production image: the same code as `npm start`, configured by environment (see README).
FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# npm ci's preinstall script checks the Node.js version.
COPY scripts/check-node.cjs scripts/
COPY core/package.json core/
COPY packages packages
COPY connectors connectors
RUN npm ci --omit=dev --no-audit --no-fund
COPY core core
USER node
EXPOSE 3000
CMD ["node", "core/src/main.ts"]
