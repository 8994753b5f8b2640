/*
 * report/fast_number.h - integers as text into memory the caller made
 * room for, without printf or a division a digit (the event printer
 * writes four or more numbers a line; tests/unit/test_fast_number.c
 * compares every writer with printf).
 */
#ifndef GCS_REPORT_FAST_NUMBER_H
#define GCS_REPORT_FAST_NUMBER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The longest text a writer below gives (UINT64_MAX: 20 digits). */
#define GCS_U64_TEXT_MAX 20

static const char gcs_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static const uint64_t gcs_pow10_u64[20] = {
    1ull,
    10ull,
    100ull,
    1000ull,
    10000ull,
    100000ull,
    1000000ull,
    10000000ull,
    100000000ull,
    1000000000ull,
    10000000000ull,
    100000000000ull,
    1000000000000ull,
    10000000000000ull,
    100000000000000ull,
    1000000000000000ull,
    10000000000000000ull,
    100000000000000000ull,
    1000000000000000000ull,
    10000000000000000000ull,
};

/* Decimal digits of v (1 for 0): log10 from the bit length (x 1233 / 4096
 * is log10(2) from below), corrected by one compare. */
static inline unsigned gcs_u64_digits(uint64_t v)
{
    unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1);
    unsigned t = (bits * 1233u) >> 12;
    unsigned n = t + (v >= gcs_pow10_u64[t]);
    return n + (n == 0);
}

/* v's `digits` low decimal digits, zero-padded, ending at end. */
static inline void gcs_put_digits_back(char *end, uint64_t v, unsigned digits)
{
    char *p = end;
    while (digits >= 2) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, gcs_digit_pairs + 2 * r, 2);
        digits -= 2;
    }
    if (digits)
        *--p = (char)('0' + v % 10);
}

/* Decimal digits of v by compares whose outcomes the branch
 * predictor learns: the numbers of a column or of a trace's times have
 * one length for long runs, and a predicted length lets every store after
 * the number go ahead before its digits are known (gcs_u64_digits' count
 * is data, which those stores' addresses would wait for). */
static inline unsigned gcs_u32_digits_predicted(uint32_t v)
{
    if (v < 10000u) {
        if (v < 100u)
            return v < 10u ? 1 : 2;
        return v < 1000u ? 3 : 4;
    }
    if (v < 1000000u)
        return v < 100000u ? 5 : 6;
    if (v < 100000000u)
        return v < 10000000u ? 7 : 8;
    return v < 1000000000u ? 9 : 10;
}

/* printf's "%" PRIu64 at w; returns the end. */
static inline char *gcs_put_u64(char *w, uint64_t v)
{
    unsigned n = gcs_u64_digits(v);
    gcs_put_digits_back(w + n, v, n);
    return w + n;
}

/* printf's "%" PRId64 at w; returns the end. */
static inline char *gcs_put_i64(char *w, int64_t v)
{
    if (v < 0) {
        *w++ = '-';
        return gcs_put_u64(w, 0 - (uint64_t)v);
    }
    return gcs_put_u64(w, (uint64_t)v);
}

/* Each byte's two lowercase hex digits. */
static const char gcs_hex_pairs[513] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* printf's "%" PRIx64 at w, which has 16 bytes of room (all of them may
 * be written); returns the end. With SSE2: the 16 digits made at once
 * (each nibble to a byte, '0' + d, 39 more where d > 9), the leading
 * zeros shifted out by a constant per length (a trace's addresses keep
 * one length: the branch is predicted), one store. Else two digits a
 * byte by table. */
static inline char *gcs_put_hex(char *w, uint64_t v)
{
    unsigned n = (64u - (unsigned)__builtin_clzll(v | 1) + 3) / 4;
#if defined(__SSE2__)
    const __m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v)); /* byte 0: the top */
    const __m128i nibble = _mm_set1_epi8(0x0f);
    const __m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), nibble),
                                        _mm_and_si128(x, nibble));
    const __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(d, _mm_set1_epi8(9)),
                                          _mm_set1_epi8('a' - '0' - 10));
    __m128i text = _mm_add_epi8(_mm_add_epi8(d, _mm_set1_epi8('0')), letters);
    switch (16 - n) {
#define GCS_HEX_SHIFT(k) case k: text = _mm_srli_si128(text, k); break;
    GCS_HEX_SHIFT(1) GCS_HEX_SHIFT(2) GCS_HEX_SHIFT(3) GCS_HEX_SHIFT(4) GCS_HEX_SHIFT(5)
    GCS_HEX_SHIFT(6) GCS_HEX_SHIFT(7) GCS_HEX_SHIFT(8) GCS_HEX_SHIFT(9) GCS_HEX_SHIFT(10)
    GCS_HEX_SHIFT(11) GCS_HEX_SHIFT(12) GCS_HEX_SHIFT(13) GCS_HEX_SHIFT(14) GCS_HEX_SHIFT(15)
#undef GCS_HEX_SHIFT
    default: break;
    }
    _mm_storeu_si128((__m128i *)(void *)w, text);
#else
    char *p = w + n;
    while (p - w >= 2) {
        p -= 2;
        memcpy(p, gcs_hex_pairs + 2 * (v & 0xff), 2);
        v >>= 8;
    }
    if (p > w)
        *w = gcs_hex_pairs[2 * (v & 0xf) + 1];
#endif
    return w + n;
}

/* n / 10^k (k < 20) by a constant divisor, which the compiler makes a
 * multiplication: a power of ten read from the table is a real 64-bit
 * division, tens of cycles for every text line's milliseconds. */
static inline uint64_t gcs_div_pow10(uint64_t n, unsigned k)
{
    switch (k) {
    case 0: return n;
    case 1: return n / 10u;
    case 2: return n / 100u;
    case 3: return n / 1000u;
    case 4: return n / 10000u;
    case 5: return n / 100000u;
    case 6: return n / 1000000u;
    case 7: return n / 10000000u;
    case 8: return n / 100000000u;
    case 9: return n / 1000000000u;
    case 10: return n / 10000000000u;
    case 11: return n / 100000000000u;
    case 12: return n / 1000000000000u;
    case 13: return n / 10000000000000u;
    case 14: return n / 100000000000000u;
    default: return n / gcs_pow10_u64[k < 20 ? k : 19];
    }
}

/* The two digits of v < 100 as a little-endian 16-bit word. */
static inline uint16_t gcs_digit_pair(uint32_t v)
{
    uint16_t pair;
    memcpy(&pair, gcs_digit_pairs + 2 * v, sizeof pair);
    return pair;
}

/* The 8 digits of v < 10^8, zero-padded, as the bytes of a little-endian
 * word (the first digit in its lowest byte): two divisions deep, not
 * four (the pairs are independent once v is cut in halves of four). */
static inline uint64_t gcs_digits8(uint32_t v)
{
    const uint32_t hi = v / 10000u, lo = v % 10000u;
    /* Put together in a register: a word loaded from four 2-byte
     * stores would wait for them (no store forwarding). */
    return (uint64_t)gcs_digit_pair(hi / 100u) | (uint64_t)gcs_digit_pair(hi % 100u) << 16 |
           (uint64_t)gcs_digit_pair(lo / 100u) << 32 | (uint64_t)gcs_digit_pair(lo % 100u) << 48;
}

/* The last `keep` (1..8) of those digits, stored as 8 bytes at w (the
 * bytes after the kept ones are zeros, to be written over or left past
 * the end). Little-endian machines only (gcs_put_int_frac checks). */
static inline void gcs_store_digits8_tail(char *w, uint64_t word, unsigned keep)
{
    word >>= 8 * (8 - keep);
    memcpy(w, &word, sizeof word);
}

#if defined(__GNUC__)
#define GCS_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define GCS_ALWAYS_INLINE inline
#endif

/* int_part, then a point and frac's `decimals` digits (none, and no
 * point, with 0), zero-padded, at w (room for 40 bytes); returns the
 * end. The usual number (int_part < 10^8, at most 8 decimals, a
 * little-endian machine) from two gcs_digits8 words, its length by
 * predicted compares; the rest two digits at a time from the last. */
static GCS_ALWAYS_INLINE char *gcs_put_int_frac(char *w, uint64_t int_part, uint32_t frac,
                                                unsigned decimals)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (int_part < 100000000u && decimals <= 8) {
        /* Both words first: their divisions overlap. */
        const uint64_t int_word = gcs_digits8((uint32_t)int_part);
        const uint64_t frac_word = gcs_digits8(frac);
        const unsigned int_digits = gcs_u32_digits_predicted((uint32_t)int_part);
        gcs_store_digits8_tail(w, int_word, int_digits);
        w += int_digits;
        if (decimals) {
            *w++ = '.';
            gcs_store_digits8_tail(w, frac_word, decimals);
            w += decimals;
        }
        return w;
    }
#endif
    const unsigned int_digits = gcs_u64_digits(int_part);
    gcs_put_digits_back(w + int_digits, int_part, int_digits);
    w += int_digits;
    if (decimals) {
        *w++ = '.';
        gcs_put_digits_back(w + decimals, frac, decimals);
        w += decimals;
    }
    return w;
}

/* N = v * 10^decimals rounded half to even, exactly, from v's bits (v =
 * m * 2^e): false where this path does not go (infinite or NaN, |v| >=
 * 2^53, N of 63 bits or more, no 128-bit integers). */
static inline bool gcs_fixed_scaled_exact(uint64_t bits, unsigned decimals, uint64_t *out)
{
#if defined(__SIZEOF_INT128__)
    unsigned biased = (unsigned)(bits >> 52) & 0x7ff;
    uint64_t m = bits & (((uint64_t)1 << 52) - 1);
    if (biased == 0x7ff)
        return false;
    int e = biased ? (int)biased - 1075 : -1074;
    if (biased)
        m |= (uint64_t)1 << 52;
    if (e > 0)
        return false;
    const uint64_t scale = gcs_pow10_u64[decimals];
    const unsigned __int128 p = (unsigned __int128)m * scale; /* < 2^83 */
    const unsigned s = (unsigned)-e;
    uint64_t n;
    if (s == 0) {
        if (p >> 63)
            return false;
        n = (uint64_t)p;
    } else if (s > 100) {
        n = 0; /* p < 2^83, far below one half of 2^s */
    } else {
        const unsigned __int128 q = p >> s;
        if (q >> 63)
            return false;
        const unsigned __int128 r = p & (((unsigned __int128)1 << s) - 1);
        const unsigned __int128 half = (unsigned __int128)1 << (s - 1);
        n = (uint64_t)q;
        if (r > half || (r == half && (n & 1)))
            n++;
    }
    *out = n;
    return true;
#else
    (void)bits;
    (void)decimals;
    (void)out;
    return false;
#endif
}

/* 10^k as doubles (all exact). */
static const double gcs_pow10_f64[10] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

/*
 * printf's "%.*f" of v with `decimals` (0..9) digits after the point, at
 * w (room for 40 bytes); returns the end, or NULL where this path does
 * not go (infinite or NaN, |v| >= 2^53 or N below too large, no 128-bit
 * integers): the caller then asks gcs_format_fixed.
 *
 * N is v's exact binary value P = |v| * 10^decimals rounded half to even
 * (printf's rounding). Below 2^52 it comes from the double product x:
 * x's spacing there is at most 1/2, so the half between two integers is
 * one of x's values, and x, within half a spacing of P, lies on the same
 * side of it as P unless x is that half itself (then, rarely,
 * gcs_fixed_scaled_exact computes N, as it does above 2^52).
 * Measured alone this product is no faster than the exact integers
 * (docs/performance.md, "Rounding by the product in doubles"); in the
 * event printer, where each event's writes wait for its time's text,
 * it is (events JSON 4-8 % faster, twenty-ninth landing).
 *
 * The digits: gcs_put_int_frac (two words of 8 made two divisions deep,
 * not two digits at a time from the last, a chain as long as the number;
 * the integer part's length by predicted compares).
 */
static GCS_ALWAYS_INLINE char *gcs_put_fixed(char *w, double v, unsigned decimals)
{
#if defined(__SIZEOF_INT128__)
    if (decimals > 9)
        return NULL;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    const uint64_t abs_bits = bits & ~((uint64_t)1 << 63);
    double av;
    memcpy(&av, &abs_bits, sizeof av);
    const double x = av * gcs_pow10_f64[decimals];
    uint64_t n;
    if (x < 0x1p52) { /* (false for NaN) */
        const uint64_t below = (uint64_t)x;
        const double f = x - (double)below; /* exact */
        n = below + (f > 0.5); /* no branch: which way is the data's */
        if (__builtin_expect(f == 0.5, 0) && !gcs_fixed_scaled_exact(bits, decimals, &n))
            return NULL;
    } else if (!gcs_fixed_scaled_exact(bits, decimals, &n)) {
        return NULL;
    }
    if (bits >> 63)
        *w++ = '-';
    const uint64_t int_part = gcs_div_pow10(n, decimals);
    return gcs_put_int_frac(w, int_part, (uint32_t)(n - int_part * gcs_pow10_u64[decimals]),
                            decimals);
#else
    (void)w;
    (void)v;
    (void)decimals;
    return NULL;
#endif
}

/*
 * gcs_msec_format's text of ms at w (room for 40 bytes), for 1 <= ms <
 * 1e9 (every event after the first millisecond of a trace shorter than 11
 * days); returns the end, or NULL elsewhere (the caller then asks
 * gcs_msec_format). Its steps without printf: the 15 significant digits
 * "%.15g" gives (ms's exact value times 10^(15 - integer digits), rounded
 * half to even); with at most 3 decimals left once trailing zeros go,
 * "%.3f" (gcs_put_fixed); else the digits to the third decimal, plus one
 * when the fourth is 5 or more.
 */
static inline char *gcs_put_msec3(char *w, double ms)
{
#if defined(__SIZEOF_INT128__)
    if (!(ms >= 1.0 && ms < 1e9))
        return NULL;
    uint64_t bits;
    memcpy(&bits, &ms, sizeof bits);
    const uint64_t m = (bits & (((uint64_t)1 << 52) - 1)) | (uint64_t)1 << 52;
    const unsigned s = 1075u - ((unsigned)(bits >> 52) & 0x7ff); /* 23..52 here */
    /* (predicted: a trace's times keep one length for long runs) */
    const unsigned int_digits = gcs_u32_digits_predicted((uint32_t)ms);
    const unsigned d = 15 - int_digits; /* decimals of the 15 digits: 6..14 */
    const unsigned __int128 p = (unsigned __int128)m * gcs_pow10_u64[d]; /* < 2^100 */
    const unsigned __int128 r = p & (((unsigned __int128)1 << s) - 1);
    const unsigned __int128 half = (unsigned __int128)1 << (s - 1);
    uint64_t n = (uint64_t)(p >> s);
    if (r > half || (r == half && (n & 1)))
        n++;
    if (n >= gcs_pow10_u64[15])
        return NULL; /* rounded up to 16 digits: "%.15g" drops a decimal */
    /* n to 4 decimals, and whether the d - 4 digits dropped are zeros. */
    const uint64_t q = gcs_div_pow10(n, d - 4);
    /* At most 3 decimals once trailing zeros go: the last d - 3 are 0. */
    if (n == q * gcs_pow10_u64[d - 4] && q % 10 == 0)
        return gcs_put_fixed(w, ms, 3);
    uint64_t thousandths = q / 10;
    if (q % 10 >= 5)
        thousandths++;
    return gcs_put_int_frac(w, thousandths / 1000, (uint32_t)(thousandths % 1000), 3);
#else
    (void)w;
    (void)ms;
    return NULL;
#endif
}

#endif
