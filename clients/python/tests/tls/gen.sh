#!/bin/sh
# Regenerates the test certificates (100 years): a CA, a server certificate for 127.0.0.1 and
# localhost, and a client certificate for mTLS, all signed by the CA, with the extensions a
# strict verifier (Python 3.13's VERIFY_X509_STRICT) asks for. Test use only.
set -e
cd "$(dirname "$0")"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 36500 \
  -subj "/CN=idmint test CA" -keyout ca-key.pem -out ca.pem \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -addext "subjectKeyIdentifier=hash"
leaf() { # name, subject, extended key usage, SAN line
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "$2" \
    -keyout "$1-key.pem" -out "$1.csr"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature"
    echo "extendedKeyUsage=$3"
    echo "subjectKeyIdentifier=hash"
    echo "authorityKeyIdentifier=keyid"
    [ -n "$4" ] && echo "$4"
  } > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 36500 \
    -extfile "$1.ext" -out "$1.pem"
  rm -f "$1.csr" "$1.ext"
}
leaf server "/CN=127.0.0.1" serverAuth "subjectAltName=IP:127.0.0.1,DNS:localhost"
leaf client "/CN=idmint test client" clientAuth ""
rm -f ca.srl ca-key.pem
