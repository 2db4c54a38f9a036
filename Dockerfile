# karmada-policy-webhook image: built on Debian 12 from Debian's packages, run on bookworm-slim as
# an unprivileged user. The entrypoint is `karmada-policy-webhook serve`; the Deployment
# (manifests/server/deployment.yaml) passes the flags as args.
#
#   docker build -t karmada-policy-webhook:latest .

# --- build ---------------------------------------------------------------------------------------
FROM debian:bookworm AS build
ARG DEBIAN_FRONTEND=noninteractive
# The Makefile's DEBIAN_PACKAGES without the test and benchmark tools (catch2, libbenchmark-dev,
# openssl, python3, curl, wrk).
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      cmake make g++ pkg-config libboost-dev libssl-dev rapidjson-dev libcli11-dev libyaml-cpp-dev \
      liblua5.2-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
 && cmake --build /build --target karmada-policy-webhook -j "$(nproc)" \
 && strip /build/karmada-policy-webhook
# The runtime stage installs libssl3, libyaml-cpp0.7 (the `check` command reads YAML) and
# liblua5.2-0 (RIC-2 parses Lua scripts): fail here, not at start-up, if the binary ever links
# another shared library that bookworm-slim lacks.
RUN unexpected="$(ldd /build/karmada-policy-webhook | awk '{print $1}' \
      | grep -Ev '^(linux-vdso\.so|libssl\.so\.3|libcrypto\.so\.3|libyaml-cpp\.so\.0\.7|liblua5\.2\.so\.0|libstdc\+\+\.so|libgcc_s\.so|libc\.so|libm\.so|/lib64/ld-linux)' || true)" \
 && if [ -n "$unexpected" ]; then \
      echo "the runtime stage lacks: $unexpected (add its package there)" >&2; exit 1; \
    fi \
 && /build/karmada-policy-webhook serve --help >/dev/null

# --- runtime -------------------------------------------------------------------------------------
FROM debian:bookworm-slim
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends libssl3 libyaml-cpp0.7 liblua5.2-0 \
 && rm -rf /var/lib/apt/lists/* \
 && echo 'nonroot:x:65532:65532:nonroot:/nonexistent:/usr/sbin/nologin' >>/etc/passwd \
 && echo 'nonroot:x:65532:' >>/etc/group
COPY --from=build /build/karmada-policy-webhook /usr/local/bin/karmada-policy-webhook
USER 65532:65532
# 8443 HTTPS admission (--secure-port), 8000 /healthz /readyz, 8080 /metrics.
EXPOSE 8443 8000 8080
ENTRYPOINT ["/usr/local/bin/karmada-policy-webhook", "serve"]
