# syntax=docker/dockerfile:1
# The hindsight image: one static binary, the HTML report's ECharts
# embedded, nothing else (no shell, no libc, no package manager), run as a
# non-root user. deploy/kubernetes/job.yaml runs it as an Indexed Job.
#
#   docker build -t hindsight:latest .
#   docker run --rm -v "$PWD/archive:/data/archive:ro" -v "$PWD/results:/results" \
#     hindsight:latest scan --exit-zero -o /results archive
#
# Built from the repository root (the build context). Stages: ECharts from
# the npm registry, pinned by package-lock.json; the Go build; the image.

FROM node:20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json ./
# Only ECharts goes into the binary; the lock pins it. --omit=optional
# leaves out DuckDB's native bindings, which only the tests use.
RUN npm ci --ignore-scripts --omit=optional --no-audit --no-fund \
 && test -s node_modules/echarts/dist/echarts.min.js

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=assets /src/node_modules/echarts/dist/echarts.min.js report/assets/echarts.min.js
# CGO_ENABLED=0: a static binary that needs no libc; -trimpath: no build
# paths inside. The build fails if the report assets did not get embedded.
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/hindsight ./cmd/hindsight \
 && /out/hindsight --version \
 && ! /out/hindsight --version | grep -q 'not embedded'

FROM scratch
COPY --from=build /out/hindsight /hindsight
# 65532: the conventional "nonroot" id; no /etc/passwd is needed for a
# numeric user. The manifest also sets runAsNonRoot and a read-only root.
USER 65532:65532
WORKDIR /data
ENTRYPOINT ["/hindsight"]
CMD ["--help"]
