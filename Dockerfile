FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends chromium openssl ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts=false
COPY . .
RUN npx --yes typescript@5.9.3 tsc -p tsconfig.json
ENV CHROMIUM_PATH=/usr/lib/chromium/chromium
CMD ["node", "dist/src/main.js"]
