#ifndef SKANKIT_COPENSSL_SHIM_H
#define SKANKIT_COPENSSL_SHIM_H

// Only libcrypto's EVP, PEM and X.509 key parsing are used: P-192 (the legacy curve of
// SKAdNetwork 1.0 and 2.0 postbacks) and key-file parsing for every curve; and its random
// generator for impression nonces (UUID+Nonce.swift).
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

// EVP_PKEY_Q_keygen is variadic, which Swift cannot call; this fixes its arguments for EC keys.
static inline EVP_PKEY *skan_ec_keygen(const char *curve_name) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve_name);
}

#endif
