// ECDSA P-256 verification with a precomputed table for the public key as well as the base point (issue #40).
//
// The technique is the fixed-base comb of Gueron and Krasnov's P-256 paper, applied to both points: for a point P,
// window i (0 ≤ i < 37) holds the 64 affine multiples j·2^(7i)·P (1 ≤ j ≤ 64). A scalar below 2^256 written in
// signed base-128 digits d_i ∈ [-64, 64] is then Σ d_i·2^(7i), so u·P is one table lookup and one mixed addition
// per non-zero digit: u1·G + u2·Q is at most 74 additions and no doublings, where a general verify needs ~255
// doublings for Q.
//
// The field and point arithmetic is BoringSSL's x86-64 assembly (ecp_nistz256_*), and s⁻¹ mod n its
// beeu_mod_inverse_vartime. swift-crypto builds them into its CCryptoBoringSSL target with a `CCryptoBoringSSL_`
// prefix and links them into every binary that links Crypto. They are internal to BoringSSL, so each declaration
// below is written by hand against swift-crypto 4.5.2 exactly (Package.swift pins that version;
// Scripts/check-p256-symbols.sh checks the names with nm, and a link of the tests proves they resolve). The
// signatures follow crypto/fipsmodule/ec/p256-nistz.h of that version: limbs are little-endian uint64_t, field
// elements are in the Montgomery domain and fully reduced, the point structures are 3 and 2 such elements.
//
// Everything here is variable time: a signature, its digest and a public key are all public.
#include "CSKANP256Table.h"

#if defined(__x86_64__) && defined(__linux__)

#include <cpuid.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t limb;

typedef struct { limb X[4], Y[4], Z[4]; } jacobian_point;  // BoringSSL's P256_POINT
typedef struct { limb x[4], y[4]; } affine_point;           // BoringSSL's P256_POINT_AFFINE

enum { WINDOWS = 37, ENTRIES = 64 };  // 37 windows of 7 bits cover 259 bits; digits reach ±64

struct skan_p256_table {
    affine_point entries[WINDOWS][ENTRIES];
};

// Two variants of each multiplication-based routine: `_adx` needs BMI2 and ADX, `_nohw` plain x86-64.
#define NISTZ_VARIANTS(name, ret, ...)                        \
    extern ret CCryptoBoringSSL_##name##_adx(__VA_ARGS__);    \
    extern ret CCryptoBoringSSL_##name##_nohw(__VA_ARGS__);
NISTZ_VARIANTS(ecp_nistz256_mul_mont, void, limb res[4], const limb a[4], const limb b[4])
NISTZ_VARIANTS(ecp_nistz256_sqr_mont, void, limb res[4], const limb a[4])
NISTZ_VARIANTS(ecp_nistz256_ord_mul_mont, void, limb res[4], const limb a[4], const limb b[4])
NISTZ_VARIANTS(ecp_nistz256_point_double, void, jacobian_point *r, const jacobian_point *a)
NISTZ_VARIANTS(ecp_nistz256_point_add, void, jacobian_point *r, const jacobian_point *a, const jacobian_point *b)
NISTZ_VARIANTS(ecp_nistz256_point_add_affine, void, jacobian_point *r, const jacobian_point *a,
               const affine_point *b)
extern void CCryptoBoringSSL_ecp_nistz256_neg(limb res[4], const limb a[4]);
extern int CCryptoBoringSSL_beeu_mod_inverse_vartime(limb out[4], const limb a[4], const limb n[4]);

// The routines this CPU runs, chosen once: the adx variants when BMI2 and ADX are there, as BoringSSL chooses.
static struct {
    void (*mul)(limb[4], const limb[4], const limb[4]);
    void (*sqr)(limb[4], const limb[4]);
    void (*ord_mul)(limb[4], const limb[4], const limb[4]);
    void (*dbl)(jacobian_point *, const jacobian_point *);
    void (*add)(jacobian_point *, const jacobian_point *, const jacobian_point *);
    void (*add_affine)(jacobian_point *, const jacobian_point *, const affine_point *);
} ops;

// The curve's constants as published (SEC 2 §2.4.2), little-endian limbs; the Montgomery ones are derived in init.
static const limb P[4] = {0xffffffffffffffff, 0x00000000ffffffff, 0x0000000000000000, 0xffffffff00000001};
static const limb N[4] = {0xf3b9cac2fc632551, 0xbce6faada7179e84, 0xffffffffffffffff, 0xffffffff00000000};
static const limb B[4] = {0x3bce3c3e27d2604b, 0x651d06b0cc53b0f6, 0xb3ebbd55769886bc, 0x5ac635d8aa3a93e7};
static limb one_mont[4];   // 2^256 mod p: 1 in the Montgomery domain
static limb rr_p[4];       // 2^512 mod p: converts into the Montgomery domain mod p
static limb rr_n[4];       // 2^512 mod n: the same mod n
static limb b_mont[4];     // the curve's b, Montgomery
static int supported;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static limb add4(limb r[4], const limb a[4], const limb b[4]) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < 4; i++) {
        carry += (unsigned __int128)a[i] + b[i];
        r[i] = (limb)carry;
        carry >>= 64;
    }
    return (limb)carry;
}

static limb sub4(limb r[4], const limb a[4], const limb b[4]) {
    limb borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
        r[i] = (limb)d;
        borrow = (limb)(d >> 64) & 1;
    }
    return borrow;
}

static int less4(const limb a[4], const limb b[4]) {
    for (int i = 3; i >= 0; i--) {
        if (a[i] != b[i]) return a[i] < b[i];
    }
    return 0;
}

static int is_zero4(const limb a[4]) { return (a[0] | a[1] | a[2] | a[3]) == 0; }
static int equal4(const limb a[4], const limb b[4]) { return memcmp(a, b, 4 * sizeof(limb)) == 0; }

static void mod_add(limb r[4], const limb a[4], const limb b[4], const limb m[4]) {
    if (add4(r, a, b) || !less4(r, m)) sub4(r, r, m);
}

static void mod_sub(limb r[4], const limb a[4], const limb b[4], const limb m[4]) {
    if (sub4(r, a, b)) add4(r, r, m);
}

static void from_bytes(limb r[4], const uint8_t bytes[32]) {
    for (int i = 0; i < 4; i++) {
        limb v = 0;
        for (int j = 0; j < 8; j++) v = (v << 8) | bytes[(3 - i) * 8 + j];
        r[i] = v;
    }
}

// 2^512 mod m by doubling 2^256 mod m 256 times: computed rather than written down, so no constant can be mistyped.
static void rr_mod(limb r[4], const limb m[4]) {
    const limb zero[4] = {0, 0, 0, 0};
    sub4(r, zero, m);  // 2^256 - m = 2^256 mod m, as m > 2^255
    for (int i = 0; i < 256; i++) mod_add(r, r, r, m);
}

static void init(void) {
    unsigned a, b, c, d;
    int adx = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 8)) && (b & (1u << 19));  // BMI2, ADX
#define PICK(field, name) ops.field = adx ? CCryptoBoringSSL_##name##_adx : CCryptoBoringSSL_##name##_nohw
    PICK(mul, ecp_nistz256_mul_mont);
    PICK(sqr, ecp_nistz256_sqr_mont);
    PICK(ord_mul, ecp_nistz256_ord_mul_mont);
    PICK(dbl, ecp_nistz256_point_double);
    PICK(add, ecp_nistz256_point_add);
    PICK(add_affine, ecp_nistz256_point_add_affine);
#undef PICK
    const limb zero[4] = {0, 0, 0, 0};
    sub4(one_mont, zero, P);
    rr_mod(rr_p, P);
    rr_mod(rr_n, N);
    ops.mul(b_mont, B, rr_p);
    // Without BMI2 and ADX the plain routines still need nothing beyond x86-64 (and valgrind, which hides ADX,
    // measures this path): 2 names the adx routines, 1 the plain ones.
    supported = adx ? 2 : 1;
}

int skan_p256_table_supported(void) {
    pthread_once(&once, init);
    return supported;
}

size_t skan_p256_table_size(void) { return sizeof(struct skan_p256_table); }

// a^(p-2) = a⁻¹ in the Montgomery domain (Fermat); only table building inverts, once per table.
static void field_invert(limb r[4], const limb a[4]) {
    limb e[4], acc[4];
    const limb two[4] = {2, 0, 0, 0};
    sub4(e, P, two);
    memcpy(acc, one_mont, sizeof acc);
    for (int bit = 255; bit >= 0; bit--) {
        ops.sqr(acc, acc);
        if ((e[bit / 64] >> (bit % 64)) & 1) ops.mul(acc, acc, a);
    }
    memcpy(r, acc, sizeof acc);
}

static int on_curve(const limb x[4], const limb y[4]) {
    limb lhs[4], rhs[4], t[4];
    ops.sqr(lhs, y);
    ops.sqr(rhs, x);
    ops.mul(rhs, rhs, x);  // x³
    mod_add(t, x, x, P);
    mod_add(t, t, x, P);
    mod_sub(rhs, rhs, t, P);  // x³ - 3x
    mod_add(rhs, rhs, b_mont, P);
    return equal4(lhs, rhs);
}

skan_p256_table *skan_p256_table_new(const uint8_t *x_bytes, const uint8_t *y_bytes) {
    if (!skan_p256_table_supported()) return NULL;
    limb x[4], y[4];
    from_bytes(x, x_bytes);
    from_bytes(y, y_bytes);
    if (!less4(x, P) || !less4(y, P)) return NULL;
    jacobian_point base;
    ops.mul(base.X, x, rr_p);
    ops.mul(base.Y, y, rr_p);
    memcpy(base.Z, one_mont, sizeof base.Z);
    if (!on_curve(base.X, base.Y)) return NULL;

    enum { COUNT = WINDOWS * ENTRIES };
    skan_p256_table *table = aligned_alloc(64, sizeof *table);
    jacobian_point *points = malloc(COUNT * sizeof *points);
    limb (*prefix)[4] = malloc(COUNT * sizeof *prefix);
    if (!table || !points || !prefix) {
        free(table), free(points), free(prefix);
        return NULL;
    }
    // Window i from its base 2^(7i)·P: 1·base, 2·base by doubling, then one full addition per multiple. None of
    // these sums has equal operands (j·base ≠ base for 2 ≤ j ≤ 64 as P has prime order n > 64·2^252).
    for (int i = 0; i < WINDOWS; i++) {
        jacobian_point *row = points + i * ENTRIES;
        row[0] = base;
        ops.dbl(&row[1], &base);
        for (int j = 2; j < ENTRIES; j++) ops.add(&row[j], &row[j - 1], &base);
        ops.dbl(&base, &row[ENTRIES - 1]);  // 128·base = 2^7·base, the next window's base
    }
    // All to affine with one inversion (Montgomery's trick): prefix[k] = Z_0 ⋯ Z_k.
    memcpy(prefix[0], points[0].Z, sizeof prefix[0]);
    for (int k = 1; k < COUNT; k++) ops.mul(prefix[k], prefix[k - 1], points[k].Z);
    limb inverse[4];
    field_invert(inverse, prefix[COUNT - 1]);  // (Z_0 ⋯ Z_k)⁻¹, walking k down
    for (int k = COUNT - 1; k >= 0; k--) {
        limb z_inv[4], z_inv2[4], z_inv3[4];
        if (k > 0) {
            ops.mul(z_inv, inverse, prefix[k - 1]);
            ops.mul(inverse, inverse, points[k].Z);
        } else {
            memcpy(z_inv, inverse, sizeof z_inv);
        }
        ops.sqr(z_inv2, z_inv);
        ops.mul(z_inv3, z_inv2, z_inv);
        affine_point *entry = &table->entries[k / ENTRIES][k % ENTRIES];
        ops.mul(entry->x, points[k].X, z_inv2);
        ops.mul(entry->y, points[k].Y, z_inv3);
    }
    free(points);
    free(prefix);
    return table;
}

void skan_p256_table_free(skan_p256_table *table) { free(table); }

// Seven bits of u from bit `position` (beyond bit 255 they are zero).
static unsigned window_bits(const limb u[4], unsigned position) {
    unsigned index = position / 64, shift = position % 64;
    limb v = u[index] >> shift;
    if (shift > 57 && index < 3) v |= u[index + 1] << (64 - shift);
    return (unsigned)(v & 127);
}

// The accumulator of u1·G + u2·Q; `empty` stands for the point at infinity, so the assembly never meets one.
typedef struct {
    jacobian_point point;
    int empty;
} accumulator;

// acc += ±entry. The mixed addition cannot add a point to itself (it yields Z = 0, as it does for acc = -entry):
// signatures are chosen by whoever sends them, so that case is detected and doubled rather than assumed away.
static void accumulate(accumulator *acc, const affine_point *entry, int negative) {
    affine_point addend;
    const affine_point *b = entry;
    if (negative) {
        memcpy(addend.x, entry->x, sizeof addend.x);
        CCryptoBoringSSL_ecp_nistz256_neg(addend.y, entry->y);
        b = &addend;
    }
    if (acc->empty) {
        memcpy(acc->point.X, b->x, sizeof acc->point.X);
        memcpy(acc->point.Y, b->y, sizeof acc->point.Y);
        memcpy(acc->point.Z, one_mont, sizeof acc->point.Z);
        acc->empty = 0;
        return;
    }
    jacobian_point sum;
    ops.add_affine(&sum, &acc->point, b);
    if (!is_zero4(sum.Z)) {
        acc->point = sum;
        return;
    }
    limb z2[4], z3[4], x[4], y[4];
    ops.sqr(z2, acc->point.Z);
    ops.mul(z3, z2, acc->point.Z);
    ops.mul(x, b->x, z2);
    ops.mul(y, b->y, z3);
    if (equal4(x, acc->point.X) && equal4(y, acc->point.Y)) {
        ops.dbl(&acc->point, &acc->point);
    } else {
        acc->empty = 1;  // acc = -b: the sum is the point at infinity
    }
}

// acc += u·P from P's table, u < n, in signed base-128 digits: a digit above 64 becomes digit - 128, carrying one.
static void multiply(accumulator *acc, const skan_p256_table *table, const limb u[4]) {
    int carry = 0;
    for (int i = 0; i < WINDOWS; i++) {
        int digit = (int)window_bits(u, 7 * i) + carry;
        carry = digit > 64;
        if (carry) digit -= 128;
        if (digit > 0) accumulate(acc, &table->entries[i][digit - 1], 0);
        if (digit < 0) accumulate(acc, &table->entries[i][-digit - 1], 1);
    }
}

// Whether the affine x of `point` (Jacobian, X/Z²), taken mod n, is r: x = r or x = r + n, compared as
// X = x·Z² so that no inversion is needed.
static int x_matches(const jacobian_point *point, const limb r[4]) {
    limb z2[4], candidate[4], scaled[4];
    ops.sqr(z2, point->Z);
    memcpy(candidate, r, sizeof candidate);
    for (int round = 0; round < 2; round++) {
        ops.mul(scaled, candidate, rr_p);
        ops.mul(scaled, scaled, z2);
        if (equal4(scaled, point->X)) return 1;
        if (add4(candidate, r, N) || !less4(candidate, P)) return 0;
    }
    return 0;
}

int skan_p256_verify(const skan_p256_table *generator, const skan_p256_table *key, const uint8_t *digest,
                     const uint8_t *r_bytes, const uint8_t *s_bytes) {
    limb r[4], s[4], e[4], w[4], t[4], u1[4], u2[4];
    from_bytes(r, r_bytes);
    from_bytes(s, s_bytes);
    if (is_zero4(r) || !less4(r, N) || is_zero4(s) || !less4(s, N)) return 0;
    from_bytes(e, digest);
    if (!less4(e, N)) sub4(e, e, N);  // e < 2^256 < 2n
    if (!CCryptoBoringSSL_beeu_mod_inverse_vartime(w, s, N)) return 0;
    // ord_mul is Montgomery: (x·w)·R⁻¹, then ·R²·R⁻¹ brings it back to x·w mod n.
    ops.ord_mul(t, e, w);
    ops.ord_mul(u1, t, rr_n);
    ops.ord_mul(t, r, w);
    ops.ord_mul(u2, t, rr_n);
    accumulator acc = {.empty = 1};
    multiply(&acc, generator, u1);
    multiply(&acc, key, u2);
    return !acc.empty && x_matches(&acc.point, r);
}

int skan_p256_scalar_divide(uint8_t *out, const uint8_t *a_bytes, const uint8_t *b_bytes) {
    if (!skan_p256_table_supported()) return 0;
    limb a[4], b[4], w[4], t[4];
    from_bytes(a, a_bytes);
    from_bytes(b, b_bytes);
    if (!less4(a, N)) sub4(a, a, N);  // a < 2^256 < 2n
    if (is_zero4(b) || !less4(b, N) || !CCryptoBoringSSL_beeu_mod_inverse_vartime(w, b, N)) return 0;
    ops.ord_mul(t, a, w);
    ops.ord_mul(w, t, rr_n);
    for (int i = 0; i < 32; i++) out[i] = (uint8_t)(w[3 - i / 8] >> (56 - 8 * (i % 8)));
    return 1;
}

#else  // not Linux x86-64: the Swift side never builds a table here

int skan_p256_table_supported(void) { return 0; }
skan_p256_table *skan_p256_table_new(const uint8_t *x, const uint8_t *y) { (void)x, (void)y; return 0; }
void skan_p256_table_free(skan_p256_table *table) { (void)table; }
size_t skan_p256_table_size(void) { return 0; }
int skan_p256_scalar_divide(uint8_t *out, const uint8_t *a, const uint8_t *b) { (void)out, (void)a, (void)b; return 0; }
int skan_p256_verify(const skan_p256_table *generator, const skan_p256_table *key, const uint8_t *digest,
                     const uint8_t *r, const uint8_t *s) {
    (void)generator, (void)key, (void)digest, (void)r, (void)s;
    return 0;
}

#endif
