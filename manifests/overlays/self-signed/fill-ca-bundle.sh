#!/usr/bin/env bash
# Puts the CA that signed the webhook's serving certificate into the webhook configurations (and
# CRD conversion patches) of the self-signed and url overlays.
#
#   manifests/overlays/self-signed/fill-ca-bundle.sh CERT_DIR   # CERT_DIR/ca.crt (certs/make-certs.sh)
#   manifests/overlays/self-signed/fill-ca-bundle.sh --reset    # back to the "{{caBundle}}" placeholder
#
# Sets every caBundle value of the generated files that carry one (`make manifests` writes them
# with the placeholder): ca-bundle-mutating.yaml and ca-bundle-validating.yaml beside this script
# (one JSON patch op per webhook entry), and crd-conversion/*.yaml here and in ../url (the CRD
# conversion patches, when the server has a conversion path) to base64(ca.crt). The output
# depends only on ca.crt, so running it again with the same CA changes nothing. CERT_DIR/tls.crt,
# when present, is checked against the CA. It then prints the command that creates the Secret
# the pods mount.
set -euo pipefail

usage() { echo "usage: $0 CERT_DIR | --reset" >&2; exit 2; }
die() { echo "$0: $*" >&2; exit 1; }

[ $# -eq 1 ] || usage
case "$1" in -h|--help) usage ;; esac

here="$(cd "$(dirname "$0")" && pwd)"

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

url="$(cd "$here/../url" && pwd)"
files=("$here"/ca-bundle-*.yaml)
for f in "$here"/crd-conversion/*.yaml "$url"/crd-conversion/*.yaml; do
  [ -e "$f" ] && files+=("$f")
done
[ -e "${files[0]}" ] || die "no ca-bundle-*.yaml beside $0: run \`make manifests\`"

# A caBundle value: a JSON patch op's `value:` after its `path: .../caBundle`, or a `caBundle:`.
tmp=""
trap 'rm -f "$tmp"' EXIT
for f in "${files[@]}"; do
  tmp="$(mktemp "$(dirname "$f")/.ca-bundle.XXXXXX")"
  awk -v v="$value" '
    prev ~ /\/caBundle$/ && /^ *value: / { sub(/value: .*/, "value: " v) }
    /^ *caBundle: / { sub(/caBundle: .*/, "caBundle: " v) }
    { print; prev = $0 }' "$f" >"$tmp"
  n="$(grep -c -e '/caBundle$' -e '^ *caBundle: ' "$f" || true)"
  chmod 644 "$tmp"
  if cmp -s "$tmp" "$f"; then
    rm -f "$tmp"
    echo "$f already holds $what ($n entries): unchanged"
  else
    mv -f "$tmp" "$f"
    echo "wrote $what into $f ($n entries)"
  fi
done

if [ "$1" != --reset ]; then
  cat <<EOF

Next: the Secret the pods mount, then the manifests (namespace karmada-system):
  kubectl -n karmada-system create secret generic karmada-policy-webhook-cert --type=kubernetes.io/tls \\
    --from-file=$cert_dir/tls.crt --from-file=$cert_dir/tls.key --from-file=$cert_dir/ca.crt \\
    --dry-run=client -o yaml | kubectl apply -f -
  kubectl apply -k $here   # or $url
EOF
  for f in "$here"/crd-conversion/*.yaml; do
    [ -e "$f" ] || continue
    echo "  kubectl patch crd $(basename "$f" .yaml) --type merge --patch-file $f   # or ../url's"
  done
fi
