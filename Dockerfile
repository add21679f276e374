FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends chromium ffmpeg openssl ca-certificates fonts-dejavu-core fonts-noto-cjk && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npx tsc -p tsconfig.json && node --import tsx ops/bundle-dist.ts && npm prune --omit=dev
ENV CHROMIUM_PATH=/usr/lib/chromium/chromium
CMD ["node", "dist/bundle/main.js"]
