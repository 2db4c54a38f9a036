# karmada-policy-webhook image: built on Debian 12 from Debian's packages; the runtime stage is
# `scratch` plus the root filesystem image/make-rootfs.sh makes: the binary, the shared libraries
# it links, the dynamic loader, /etc/passwd and /etc/group, nothing else (no shell, no package
# manager). It runs as the unprivileged 65532 by default, and as any other uid, on a read-only
# root filesystem: it writes nothing.
#
# The binary is there under two names:
#   /bin/karmada-webhook          what upstream Karmada's installers run, as `command:` with
#                                 upstream's flags (`/bin/karmada-webhook --kubeconfig=...
#                                 --secure-port=8443 --cert-dir=/var/serving-cert --v=2`), so an
#                                 installer's image setting alone can point its Deployment here
#   /bin/karmada-policy-webhook   the entrypoint: with flags only (or none) it serves, as
#                                 `serve`; our own Deployment (manifests/server/deployment.yaml)
#                                 passes the `serve` flags as args; another command is the first
#                                 argument (`docker run IMAGE check - < policies.yaml`, `version`)
#
# test/e2e/test_image.py runs the binary from the same root filesystem alone (`make rootfs`).
#
#   docker build --build-arg KPW_GIT_COMMIT=$(git rev-parse --short=12 HEAD) \
#     -t karmada-policy-webhook:latest .
#
# (.git is not in the build context: KPW_GIT_COMMIT is the commit `version` and the build_info
# metric report; without it they say "unknown".)

# --- build ---------------------------------------------------------------------------------------
FROM debian:bookworm AS build
ARG DEBIAN_FRONTEND=noninteractive
# The Makefile's SERVER_PACKAGES: what the server needs to build, none of the test tools.
ARG KPW_GIT_COMMIT=
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      cmake make g++ pkg-config libboost-dev libssl-dev rapidjson-dev libcli11-dev libyaml-cpp-dev \
      liblua5.2-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DKPW_BENCH=OFF \
      "-DKPW_GIT_COMMIT=${KPW_GIT_COMMIT}" \
 && cmake --build /build --target karmada-policy-webhook -j "$(nproc)" \
 && strip /build/karmada-policy-webhook
# The whole runtime filesystem. The script refuses a library ldd cannot find; the binary cannot be
# run from /rootfs here (chroot needs privileges docker build lacks), test_image.py does that.
RUN image/make-rootfs.sh /build/karmada-policy-webhook /rootfs \
 && /build/karmada-policy-webhook serve --help >/dev/null

# --- runtime -------------------------------------------------------------------------------------
FROM scratch
COPY --from=build /rootfs/ /
USER 65532:65532
# 8443 HTTPS admission (--secure-port), 8000 /healthz /readyz, 8080 /metrics.
EXPOSE 8443 8000 8080
ENTRYPOINT ["/bin/karmada-policy-webhook"]
