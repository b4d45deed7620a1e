# syntax=docker/dockerfile:1.10
#
# loopwork's container image. Two runtime targets share one build:
#
#   docker build -t loopwork .                    the default: a static binary on an empty base, non-root
#                                                 (about 105 MB, nearly all of it the binary); offline
#                                                 speech-to-text answers 501 unless LOOPWORK_TRANSCRIPTION_URL
#                                                 names an outside recogniser
#   docker build --target speech -t loopwork:speech .
#                                                 the same binary on Debian slim with ffmpeg and pocketsphinx,
#                                                 for the offline recogniser (several hundred MB more)
#
# internal/deploy's tests read this file: they run the build stage's RUN lines that fill /rootfs (with
# /rootfs moved to a temporary directory), check the binary is static, and start it chrooted into that
# tree, which is exactly what the default image holds. Keep the image's content made by those lines.

FROM golang:1.26.8-bookworm AS build
WORKDIR /src
# What the binary needs besides itself: CA certificates (SMTP, S3, outbound HTTP over TLS), a world-writable
# /tmp (export spools, uploaded recordings), a passwd entry for its numeric user, and the data directory
# it owns (local file storage; a volume).
RUN mkdir -p /rootfs/usr/local/bin /rootfs/etc/ssl/certs /rootfs/tmp /rootfs/var/lib/loopwork/storage && \
    cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/ca-certificates.crt && \
    echo 'loopwork:x:65532:65532:loopwork:/var/lib/loopwork:/nonexistent' > /rootfs/etc/passwd && \
    echo 'loopwork:x:65532:' > /rootfs/etc/group && \
    chmod 1777 /rootfs/tmp && chown -R 65532:65532 /rootfs/var/lib/loopwork
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
# The flags are the Makefile's plus CGO_ENABLED=0 (a static binary: nothing to load from the base) and
# -trimpath (no build machine paths in it).
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags "-X github.com/loopwork/loopwork/internal/buildinfo.Version=${VERSION}" -o /rootfs/usr/local/bin/loopwork ./cmd/loopwork

# speech: Debian's ffmpeg, pocketsphinx and its en-us model beside the same binary. Debian 12 is the
# release whose packages the offline recogniser is tested with.
FROM debian:12.11-slim AS speech
RUN apt-get update && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates ffmpeg pocketsphinx pocketsphinx-en-us && \
    rm -rf /var/lib/apt/lists/* && \
    groupadd --system --gid 65532 loopwork && \
    useradd --system --uid 65532 --gid 65532 --home-dir /var/lib/loopwork --shell /usr/sbin/nologin loopwork
COPY --from=build --chown=65532:65532 /rootfs/var/lib/loopwork /var/lib/loopwork
COPY --from=build /rootfs/usr/local/bin/loopwork /usr/local/bin/loopwork
ENV LOOPWORK_ADDR=0.0.0.0:8080 LOOPWORK_STORAGE_DIR=/var/lib/loopwork/storage
WORKDIR /var/lib/loopwork
VOLUME /var/lib/loopwork
USER 65532:65532
EXPOSE 8080 2525
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["/usr/local/bin/loopwork", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/loopwork"]
CMD ["serve"]

# runtime (the default target, so last): the tree built above and nothing else.
FROM scratch AS runtime
COPY --from=build /rootfs/ /
# LOOPWORK_ADDR listens on every interface, as a container must to be reachable; the storage directory
# is the volume's. 8080 is HTTP; 2525 is where LOOPWORK_INBOUND_SMTP_ADDR=0.0.0.0:2525 puts the inbound
# SMTP listener when it is wanted (a non-root process cannot bind 25: map 25 to it outside).
ENV LOOPWORK_ADDR=0.0.0.0:8080 LOOPWORK_STORAGE_DIR=/var/lib/loopwork/storage
WORKDIR /var/lib/loopwork
VOLUME /var/lib/loopwork
USER 65532:65532
EXPOSE 8080 2525
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["/usr/local/bin/loopwork", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/loopwork"]
CMD ["serve"]
