#!/usr/bin/env bash
# Makes a development CA and a serving certificate for karmada-policy-webhook.
#
#   certs/make-certs.sh [--rsa] [--force] DIR
#
# DIR gets ca.crt, ca.key, tls.crt and tls.key (the names the server's --cert-dir expects).
# Keys are ECDSA P-256 unless --rsa (RSA 2048). The serving certificate is valid for localhost,
# 127.0.0.1, ::1 and the in-cluster Service names of $SERVICE in $NAMESPACE
# (default karmada-policy-webhook in karmada-system). An existing, complete DIR is kept unless
# --force, so `make run` can call this every time.
set -euo pipefail

usage() { echo "usage: $0 [--rsa] [--force] DIR" >&2; exit 2; }

key_type=ec
force=0
dir=
while [ $# -gt 0 ]; do
  case "$1" in
    --rsa) key_type=rsa ;;
    --force) force=1 ;;
    -h|--help) usage ;;
    -*) echo "$0: unknown option $1" >&2; usage ;;
    *) [ -z "$dir" ] || usage; dir="$1" ;;
  esac
  shift
done
[ -n "$dir" ] || usage

service="${SERVICE:-karmada-policy-webhook}"
namespace="${NAMESPACE:-karmada-system}"
days="${DAYS:-365}"

if [ "$force" -eq 0 ] && [ -s "$dir/ca.crt" ] && [ -s "$dir/tls.crt" ] && [ -s "$dir/tls.key" ]; then
  echo "certificates exist in $dir (use --force to make new ones)"
  exit 0
fi

command -v openssl >/dev/null || { echo "$0: openssl is not installed" >&2; exit 1; }
mkdir -p "$dir"
umask 077
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

new_key() {
  if [ "$key_type" = rsa ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1" 2>/dev/null
  else
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"
  fi
}

new_key "$work/ca.key"
openssl req -x509 -new -key "$work/ca.key" -sha256 -days "$days" \
  -subj "/CN=karmada-policy-webhook development CA" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -out "$work/ca.crt"

new_key "$work/tls.key"
openssl req -new -key "$work/tls.key" -subj "/CN=$service.$namespace.svc" -out "$work/tls.csr"
cat > "$work/ext.cnf" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1,DNS:$service,DNS:$service.$namespace,DNS:$service.$namespace.svc,DNS:$service.$namespace.svc.cluster.local
EXT
openssl x509 -req -in "$work/tls.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial \
  -sha256 -days "$days" -extfile "$work/ext.cnf" -out "$work/tls.crt" 2>/dev/null

openssl verify -CAfile "$work/ca.crt" "$work/tls.crt" >/dev/null
for f in ca.crt ca.key tls.crt tls.key; do mv -f "$work/$f" "$dir/$f"; done
chmod 600 "$dir/ca.key" "$dir/tls.key"
chmod 644 "$dir/ca.crt" "$dir/tls.crt"
echo "made a $key_type CA and serving certificate in $dir ($service.$namespace.svc, localhost, 127.0.0.1, ::1)"
