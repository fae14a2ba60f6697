# vitrin as one executable on Debian (slim). Build stage: the same `npm ci` and `npm run build` (scripts/build.ts)
# that CI runs before testing the binary; runtime stage: the binary alone, with Debian's ffmpeg, as in CI.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
# package.json's allowScripts denies onnxruntime-node's install script (a CUDA download) on npm 11; an image whose
# npm is older ignores allowScripts, and this variable makes that script skip itself there too.
ENV ONNXRUNTIME_NODE_INSTALL=skip
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build -- --outfile /out/vitrin

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# A fixed non-root user. The image writes nothing outside /data and /tmp, so the root filesystem can be read-only:
# the native libraries are unpacked under the data volume (a tmpfs is usually mounted noexec, and dlopen needs exec).
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/vitrin vitrin \
 && mkdir -p /data /opt/vitrin/plugins /opt/vitrin/templates \
 && chown vitrin:vitrin /data
COPY --from=build /out/vitrin /opt/vitrin/vitrin
# Numeric, so Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
USER 10001:10001
WORKDIR /opt/vitrin
ENV VITRIN_DATA_DIR=/data VITRIN_PORT=8080 VITRIN_HOST=0.0.0.0 VITRIN_NATIVE_DIR=/data/native
VOLUME ["/data"]
EXPOSE 8080
# Plugins and templates dropped into /opt/vitrin/plugins and /opt/vitrin/templates (next to the binary) load at start.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["/opt/vitrin/vitrin", "health"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/opt/vitrin/vitrin"]
CMD ["serve"]
