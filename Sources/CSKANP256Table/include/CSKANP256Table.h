// ECDSA P-256 verification against one fixed public key, with a precomputed table per point (issue #40).
//
// A general verify computes u1·G + u2·Q with a table only for G. With Q fixed for the life of the process, a table
// for Q built once turns the whole multiplication into about 74 mixed additions and no doublings. The point and
// field arithmetic is BoringSSL's x86-64 assembly, already linked through swift-crypto; see the .c file for which
// symbols and why the swift-crypto version is pinned.
#ifndef CSKANP256TABLE_H
#define CSKANP256TABLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The table of one point: for each of 37 seven-bit windows, the 64 multiples 1·2^(7i)·P ... 64·2^(7i)·P in affine
/// Montgomery coordinates. 151,552 bytes. Immutable once built, so any number of threads may read it.
typedef struct skan_p256_table skan_p256_table;

/// Whether this build can run the table path, and on which of BoringSSL's routines: 2 on Linux x86-64 with BMI2 and
/// ADX (the `_adx` assembly), 1 on Linux x86-64 without them (the plain `_nohw` assembly), 0 anywhere else.
int skan_p256_table_supported(void);

/// Builds the table of the point (x, y), each coordinate 32 bytes big-endian. NULL when the path is unsupported, the
/// point is not on the curve, or memory is short. The caller frees it with skan_p256_table_free.
skan_p256_table *_Nullable skan_p256_table_new(const uint8_t *_Nonnull x, const uint8_t *_Nonnull y);

/// Frees a table from skan_p256_table_new (NULL is ignored).
void skan_p256_table_free(skan_p256_table *_Nullable table);

/// The table's size in bytes, for memory accounting.
size_t skan_p256_table_size(void);

/// 1 when (r, s), each 32 bytes big-endian, is a valid ECDSA signature over `digest` (32 bytes, SHA-256) by the key
/// whose table is `key`, with `generator` the table of P-256's base point. 0 otherwise, including r or s out of
/// [1, n-1]. Variable time: every input of a verification is public.
int skan_p256_verify(const skan_p256_table *_Nonnull generator, const skan_p256_table *_Nonnull key,
                     const uint8_t *_Nonnull digest, const uint8_t *_Nonnull r, const uint8_t *_Nonnull s);

/// out = a / b mod n (P-256's group order), all 32 bytes big-endian; a may be any 256-bit value, b must be in
/// [1, n-1]. 1 on success, 0 otherwise. The self-test uses it to make signatures that the fixed key must accept
/// without its private key (with a zero digest, r = x(u·Q) mod n and s = r/u sign for Q).
int skan_p256_scalar_divide(uint8_t *_Nonnull out, const uint8_t *_Nonnull a, const uint8_t *_Nonnull b);

#ifdef __cplusplus
}
#endif

#endif
