#!/usr/bin/env bash
# Points every webhook URL of the url overlay at HOST (and PORT, 443 unless given).
#
#   manifests/overlays/url/set-url-host.sh HOST[:PORT]
#   manifests/overlays/url/set-url-host.sh karmada-policy-webhook.karmada-system.svc.cluster.local  # the default
#
# Rewrites only the host:port of the `https://HOST:PORT/<path>` values of the generated files
# (`make manifests`): url-mutating.yaml, url-validating.yaml and the CRD conversion patches
# crd-conversion/*.yaml (when the server has a conversion path). Running it again with the same
# argument changes nothing. The serving certificate must carry HOST as a DNS name (or IP address)
# SAN.
set -euo pipefail

usage() { echo "usage: $0 HOST[:PORT]" >&2; exit 2; }
[ $# -eq 1 ] || usage
case "$1" in -h|--help) usage ;; esac

host="$1"
# A DNS name or IPv4 address, or a bracketed IPv6 address, then an optional port.
if ! [[ "$host" =~ ^([A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$ ]]; then
  echo "$0: not a HOST or HOST:PORT: $host" >&2
  exit 2
fi
[ -n "${BASH_REMATCH[3]}" ] || host="$host:443"

here="$(cd "$(dirname "$0")" && pwd)"
files=("$here/url-mutating.yaml" "$here/url-validating.yaml")
for f in "$here"/crd-conversion/*.yaml; do
  [ -e "$f" ] && files+=("$f")
done
sed -i -E "s#^( *(value|url): https://)[^/]+/#\1$host/#" "${files[@]}"
grep -h -E '^ *(value|url): https://' "${files[@]}"
