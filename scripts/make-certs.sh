#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the certificates of the gateway peering (docs/peering.md) with the
# openssl command line:
#
#   scripts/make-certs.sh [-o DIR] [--days N] [--test] SITE...
#
# DIR (default ./pki) receives:
#   ca.crt ca.key          the lab CA (kept if DIR already has one)
#   SITE.crt SITE.key      one per SITE, issued by the CA, naming SITE in a
#                          subjectAltName of DNS form, for TLS server and
#                          client use (each gateway is both)
#   crl.pem                the CA's CRL (revokes nothing without --test)
# With --test, for the first SITE (S) the refusal fixtures of the tests:
#   other-ca.crt other-ca.key    an unrelated CA
#   S-otherca.crt/.key     names S, issued by the unrelated CA
#   S-expired.crt/.key     names S, valid 2020-01-01 to 2020-01-02 only
#   S-wrongsite.crt/.key   issued by the lab CA, names "other-site"
#   S-revoked.crt/.key     names S, revoked in crl.pem
#   crl-empty.pem          the CA's CRL before that revocation
# Keys are EC P-256, private key files mode 0600. Site certificates are
# issued anew on every run (rotation: a running gateway reloads them); the
# CA and its database (DIR/ca-db) stay, so earlier certificates remain valid.
#
# Debian 12's openssl 3.0 has no -not_before for `openssl x509`, so every
# certificate is issued with `openssl ca`, whose -startdate/-enddate give the
# expired one its dates in the past, and whose database makes the CRL.
set -euo pipefail

out=pki
days=825
test_fixtures=false
sites=()
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out=$2; shift 2 ;;
	--days) days=$2; shift 2 ;;
	--test) test_fixtures=true; shift ;;
	-h|--help) sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "make-certs: unknown option $1" >&2; exit 2 ;;
	*) sites+=("$1"); shift ;;
	esac
done
if [ ${#sites[@]} -eq 0 ]; then
	echo "usage: make-certs.sh [-o DIR] [--days N] [--test] SITE..." >&2
	exit 2
fi
for s in "${sites[@]}"; do
	# The peering matches the configured site name against a DNS SAN.
	if ! [[ $s =~ ^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$ ]]; then
		echo "make-certs: site name '$s' is not a DNS label of 1-32 characters [a-z0-9-]" >&2
		exit 2
	fi
done

command -v openssl >/dev/null || { echo "make-certs: openssl not found" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
umask 077
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ca_conf NAME: the openssl config of CA NAME (database in $out/NAME-db).
ca_conf() {
	local db="$out/$1-db"
	mkdir -p "$db/new"
	[ -f "$db/index.txt" ] || : > "$db/index.txt"
	[ -f "$db/serial" ] || openssl rand -hex 8 > "$db/serial"
	[ -f "$db/crlnumber" ] || echo 01 > "$db/crlnumber"
	cat > "$tmp/$1.cnf" <<EOF
[ca]
default_ca = this_ca
[this_ca]
database = $db/index.txt
new_certs_dir = $db/new
serial = $db/serial
crlnumber = $db/crlnumber
certificate = $out/$1.crt
private_key = $out/$1.key
default_md = sha256
default_crl_days = 3650
policy = policy_cn
unique_subject = no
copy_extensions = none
[policy_cn]
commonName = supplied
[req]
distinguished_name = req_dn
prompt = no
[req_dn]
CN = unused
[ext_ca]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
EOF
}

genkey() {
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null
	chmod 600 "$1"
}

# make_ca NAME "COMMON NAME": a self-signed CA, kept when it exists.
make_ca() {
	ca_conf "$1"
	if [ -f "$out/$1.crt" ] && [ -f "$out/$1.key" ]; then
		return
	fi
	genkey "$out/$1.key"
	openssl req -config "$tmp/$1.cnf" -new -x509 -key "$out/$1.key" -subj "/CN=$2" \
		-days 3650 -extensions ext_ca -out "$out/$1.crt"
	chmod 644 "$out/$1.crt"
}

# issue CA FILE SAN [DATE ARGS...]: FILE.key and FILE.crt naming SAN.
issue() {
	local ca=$1 file=$2 san=$3
	shift 3
	genkey "$out/$file.key"
	openssl req -config "$tmp/$ca.cnf" -new -key "$out/$file.key" -subj "/CN=$san" \
		-out "$tmp/$file.csr"
	cat > "$tmp/$file.ext" <<EOF
[ext_site]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:$san
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
	openssl ca -config "$tmp/$ca.cnf" -batch -notext -in "$tmp/$file.csr" \
		-extfile "$tmp/$file.ext" -extensions ext_site "$@" -out "$out/$file.crt" 2>/dev/null
	chmod 644 "$out/$file.crt"
}

gencrl() {
	openssl ca -config "$tmp/ca.cnf" -gencrl -out "$1" 2>/dev/null
	chmod 644 "$1"
}

make_ca ca "Longspan lab CA"
for s in "${sites[@]}"; do
	issue ca "$s" "$s" -days "$days"
done

if $test_fixtures; then
	s=${sites[0]}
	make_ca other-ca "Longspan other CA"
	issue other-ca "$s-otherca" "$s" -days "$days"
	issue ca "$s-expired" "$s" -startdate 20200101000000Z -enddate 20200102000000Z
	issue ca "$s-wrongsite" other-site -days "$days"
	issue ca "$s-revoked" "$s" -days "$days"
	gencrl "$out/crl-empty.pem"
	openssl ca -config "$tmp/ca.cnf" -revoke "$out/$s-revoked.crt" 2>/dev/null
fi
gencrl "$out/crl.pem"
echo "make-certs: CA, ${#sites[@]} site certificate(s)$($test_fixtures && echo ' and test fixtures') in $out"
