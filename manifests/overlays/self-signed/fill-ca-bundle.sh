#!/usr/bin/env bash
# Puts the CA that signed the webhook's serving certificate into the webhook configurations of the
# self-signed and url overlays.
#
#   manifests/overlays/self-signed/fill-ca-bundle.sh CERT_DIR   # CERT_DIR/ca.crt (certs/make-certs.sh)
#   manifests/overlays/self-signed/fill-ca-bundle.sh --reset    # back to the "{{caBundle}}" placeholder
#
# Writes ca-bundle-mutating.yaml and ca-bundle-validating.yaml beside this script: one JSON patch
# op per webhook entry of the base configuration of that name (a kind may have a validating entry
# only), setting clientConfig.caBundle to base64(ca.crt). The output depends only on ca.crt, so
# running it again with the same CA changes nothing. CERT_DIR/tls.crt, when present, is checked
# against the CA. It then prints the command that creates the Secret the pods mount.
set -euo pipefail

usage() { echo "usage: $0 CERT_DIR | --reset" >&2; exit 2; }
die() { echo "$0: $*" >&2; exit 1; }

[ $# -eq 1 ] || usage
case "$1" in -h|--help) usage ;; esac

here="$(cd "$(dirname "$0")" && pwd)"
base="$here/../../base"

# One entry per webhook, in the base's order.
count() { grep -c '^  - name: ' "$base/$1"; }
n_mutating="$(count mutatingwebhookconfiguration.yaml)"
n_validating="$(count validatingwebhookconfiguration.yaml)"
[ "$n_mutating" -gt 0 ] && [ "$n_validating" -gt 0 ] ||
  die "the base configurations have $n_mutating mutating and $n_validating validating entries"

if [ "$1" = --reset ]; then
  value='"{{caBundle}}"'
  what="the {{caBundle}} placeholder"
else
  cert_dir="${1%/}"
  ca="$cert_dir/ca.crt"
  [ -s "$ca" ] || die "$ca is missing or empty"
  grep -q -- '-----BEGIN CERTIFICATE-----' "$ca" || die "$ca is not a PEM certificate"
  if command -v openssl >/dev/null; then
    openssl x509 -in "$ca" -noout 2>/dev/null || die "$ca is not a readable PEM certificate"
    if [ -s "$cert_dir/tls.crt" ]; then
      openssl verify -CAfile "$ca" "$cert_dir/tls.crt" >/dev/null 2>&1 ||
        die "$cert_dir/tls.crt is not signed by $ca: the API server would refuse the webhook"
    fi
  fi
  value="$(base64 -w0 <"$ca")"
  what="base64($ca)"
fi

# write NAME N: ca-bundle-NAME.yaml, N entries.
tmp=""
trap 'rm -f "$tmp"' EXIT
write() {
  local out="$here/ca-bundle-$1.yaml"
  tmp="$(mktemp "$here/.ca-bundle.XXXXXX")"
  {
    echo "# Written by fill-ca-bundle.sh: clientConfig.caBundle of every $1 webhook entry. \"{{caBundle}}\""
    echo '# is the placeholder it replaces (the API server refuses it, so nothing half-configured gets applied).'
    for ((i = 0; i < $2; i++)); do
      echo "- op: add"
      echo "  path: /webhooks/$i/clientConfig/caBundle"
      echo "  value: $value"
    done
  } >"$tmp"
  chmod 644 "$tmp"
  if cmp -s "$tmp" "$out"; then
    rm -f "$tmp"
    echo "$out already holds $what ($2 entries): unchanged"
  else
    mv -f "$tmp" "$out"
    echo "wrote $what into $out ($2 entries)"
  fi
}
write mutating "$n_mutating"
write validating "$n_validating"

if [ "$1" != --reset ]; then
  cat <<EOF

Next: the Secret the pods mount, then the manifests (namespace karmada-system):
  kubectl -n karmada-system create secret generic karmada-policy-webhook-cert --type=kubernetes.io/tls \\
    --from-file=$cert_dir/tls.crt --from-file=$cert_dir/tls.key --from-file=$cert_dir/ca.crt \\
    --dry-run=client -o yaml | kubectl apply -f -
  kubectl apply -k $here   # or $(cd "$here/../url" && pwd)
EOF
fi
