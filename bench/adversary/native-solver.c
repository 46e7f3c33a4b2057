/*
 * The native solver an attacker would run against our proof of work (issue 27's adversary
 * 2), on every core (one thread per sub-puzzle stripe), with the faster of two engines on
 * this CPU: SHA-256 through OpenSSL's libcrypto (the CPU's SHA extensions, SHA-NI, where
 * present) or, where the CPU has AVX-512, sixteen nonces at a time in 512-bit vectors (native
 * rotates and three-input logic). Same puzzle as the widget: for i in 0..count-1, the
 * smallest decimal nonce n with SHA-256("<id>.<i>:<n>") starting with `bits` zero bits.
 *
 *   native-solver solve <id> <count> <bits> [threads]   -> solutions (comma-separated), then
 *                                                          "hashes <n> seconds <s>" on stderr
 *   native-solver rate <seconds> [threads]              -> "rate <hashes per second>"
 *   (NATIVE_ENGINE=openssl or avx512 picks an engine; otherwise AVX-512 where the CPU has it)
 *
 * Build: gcc -O3 -march=native -pthread native-solver.c -lcrypto
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int leading_zero_bits(const unsigned char *h) {
  int bits = 0;
  for (int i = 0; i < 32; i++) {
    if (h[i] == 0) { bits += 8; continue; }
    return bits + __builtin_clz((unsigned)h[i]) - 24;
  }
  return bits;
}

struct job {
  const char *id;
  int bits, first, step, count;
  unsigned long long *nonces;
  unsigned long long hashes;
  double until; /* rate mode: stop at this time */
};

/* Decimal digits of n into out (no terminator); returns their count. */
static int digits(unsigned long long n, char *out) {
  char tmp[24];
  int k = 0;
  do { tmp[k++] = (char)('0' + n % 10); n /= 10; } while (n);
  for (int i = 0; i < k; i++) out[i] = tmp[k - 1 - i];
  return k;
}


#ifdef __AVX512F__
#include <immintrin.h>

static const unsigned K256[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

/* One 64-byte block per lane: prefix, decimal nonce, 0x80, zeros, bit length. */
struct lane { unsigned char block[64]; int len; };

static void set_lane(struct lane *l, const char *prefix, int plen, unsigned long long n) {
  memset(l->block, 0, 64);
  memcpy(l->block, prefix, (size_t)plen);
  l->len = plen + digits(n, (char *)l->block + plen);
  l->block[l->len] = 0x80;
  unsigned bitlen = (unsigned)l->len * 8;
  l->block[62] = (unsigned char)(bitlen >> 8);
  l->block[63] = (unsigned char)bitlen;
}

/* Adds 16 to the lane's decimal nonce in place; returns 0 when it needs one more digit. */
static int bump16(struct lane *l, int plen) {
  int carry = 16;
  for (int p = l->len - 1; p >= plen; p--) {
    int c = l->block[p] - '0' + carry;
    if (c <= 9) { l->block[p] = (unsigned char)('0' + c); return 1; }
    l->block[p] = (unsigned char)('0' + c % 10);
    carry = c / 10;
  }
  return 0;
}

#define ROR(x, n) _mm512_ror_epi32((x), (n))
#define XOR3(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0x96)

/*
 * The smallest nonce >= 0 whose digest starts with `bits` zero bits, 16 nonces at a time;
 * ULLONG_MAX when `groups` groups of 16 found none.
 */
static unsigned long long search_avx512(const char *prefix, int plen, int bits, unsigned long long *hashes,
                                        unsigned long long groups) {
  struct lane lanes[16];
  unsigned long long n = 0;
  for (int j = 0; j < 16; j++) set_lane(&lanes[j], prefix, plen, n + (unsigned)j);
  const __m512i limit = _mm512_set1_epi32((int)(1u << (32 - bits)));
  for (; groups > 0; groups--) {
    __m512i w[64];
    for (int k = 0; k < 16; k++) {
      int v[16];
      for (int j = 0; j < 16; j++) {
        unsigned x;
        memcpy(&x, lanes[j].block + 4 * k, 4);
        v[j] = (int)__builtin_bswap32(x);
      }
      w[k] = _mm512_loadu_si512(v);
    }
    for (int t = 16; t < 64; t++) {
      __m512i s0 = XOR3(ROR(w[t - 15], 7), ROR(w[t - 15], 18), _mm512_srli_epi32(w[t - 15], 3));
      __m512i s1 = XOR3(ROR(w[t - 2], 17), ROR(w[t - 2], 19), _mm512_srli_epi32(w[t - 2], 10));
      w[t] = _mm512_add_epi32(_mm512_add_epi32(s0, w[t - 7]), _mm512_add_epi32(s1, w[t - 16]));
    }
    __m512i a = _mm512_set1_epi32(0x6a09e667), b = _mm512_set1_epi32((int)0xbb67ae85),
            c = _mm512_set1_epi32(0x3c6ef372), d = _mm512_set1_epi32((int)0xa54ff53a),
            e = _mm512_set1_epi32(0x510e527f), f = _mm512_set1_epi32((int)0x9b05688c),
            g = _mm512_set1_epi32(0x1f83d9ab), h = _mm512_set1_epi32(0x5be0cd19);
    for (int t = 0; t < 64; t++) {
      __m512i t1 = _mm512_add_epi32(
          _mm512_add_epi32(h, XOR3(ROR(e, 6), ROR(e, 11), ROR(e, 25))),
          _mm512_add_epi32(_mm512_ternarylogic_epi32(e, f, g, 0xCA),
                           _mm512_add_epi32(_mm512_set1_epi32((int)K256[t]), w[t])));
      __m512i t2 = _mm512_add_epi32(XOR3(ROR(a, 2), ROR(a, 13), ROR(a, 22)), _mm512_ternarylogic_epi32(a, b, c, 0xE8));
      h = g; g = f; f = e; e = _mm512_add_epi32(d, t1); d = c; c = b; b = a; a = _mm512_add_epi32(t1, t2);
    }
    __mmask16 hit = _mm512_cmplt_epu32_mask(_mm512_add_epi32(a, _mm512_set1_epi32(0x6a09e667)), limit);
    if (hit) {
      int j = __builtin_ctz(hit);
      *hashes += (unsigned)j + 1;
      return n + (unsigned)j;
    }
    *hashes += 16;
    n += 16;
    for (int j = 0; j < 16; j++)
      if (!bump16(&lanes[j], plen)) set_lane(&lanes[j], prefix, plen, n + (unsigned)j);
  }
  return ULLONG_MAX;
}
#endif

static int use_avx512(void) {
#ifdef __AVX512F__
  const char *e = getenv("NATIVE_ENGINE");
  return !(e && strcmp(e, "openssl") == 0);
#else
  return 0;
#endif
}

/*
 * The prefix is hashed once (its state kept: what a "midstate" attacker does when the prefix
 * fills whole 64-byte blocks; for shorter prefixes SHA256_Update only buffers it), then each
 * nonce is the copied state plus its digits.
 */
static unsigned long long solve_one(const char *id, int i, int bits, unsigned long long *hashes) {
  char prefix[256], nonce[24];
  int plen = snprintf(prefix, sizeof prefix, "%s.%d:", id, i);
#ifdef __AVX512F__
  if (use_avx512() && plen + 17 <= 55 && bits <= 32) return search_avx512(prefix, plen, bits, hashes, ULLONG_MAX);
#endif
  SHA256_CTX base, c;
  SHA256_Init(&base);
  SHA256_Update(&base, prefix, (size_t)plen);
  unsigned char h[32];
  for (unsigned long long n = 0;; n++) {
    c = base;
    SHA256_Update(&c, nonce, (size_t)digits(n, nonce));
    SHA256_Final(h, &c);
    (*hashes)++;
    if (leading_zero_bits(h) >= bits) return n;
  }
}

static void *solve_stripe(void *arg) {
  struct job *j = arg;
  for (int i = j->first; i < j->count; i += j->step) j->nonces[i] = solve_one(j->id, i, j->bits, &j->hashes);
  return NULL;
}

static void *rate_loop(void *arg) {
  struct job *j = arg;
  char prefix[64], nonce[24];
  int plen = snprintf(prefix, sizeof prefix, "AAAAAAAAAAAAAAAAAAAAAA.%d:", j->first);
#ifdef __AVX512F__
  if (use_avx512()) {
    /* 32 bits: a pass is a one-in-four-billion chance, so each slice runs its full length. */
    while (now() < j->until) search_avx512(prefix, plen, 32, &j->hashes, 4096);
    return NULL;
  }
#endif
  SHA256_CTX base, c;
  SHA256_Init(&base);
  SHA256_Update(&base, prefix, (size_t)plen);
  unsigned char h[32];
  unsigned long long n = 0;
  while (now() < j->until) {
    for (int k = 0; k < 4096; k++, n++) {
      c = base;
      SHA256_Update(&c, nonce, (size_t)digits(n, nonce));
      SHA256_Final(h, &c);
    }
    j->hashes += 4096;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[1], "solve") == 0) {
    int count = atoi(argv[3]), bits = atoi(argv[4]), threads = argc > 5 ? atoi(argv[5]) : 1;
    if (count < 1 || count > 4096 || bits < 1 || bits > 40 || threads < 1 || threads > 256) return 2;
    unsigned long long *nonces = calloc((size_t)count, sizeof *nonces);
    struct job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    double start = now();
    for (int t = 0; t < threads; t++) {
      jobs[t] = (struct job){argv[2], bits, t, threads, count, nonces, 0, 0};
      pthread_create(&tids[t], NULL, solve_stripe, &jobs[t]);
    }
    unsigned long long hashes = 0;
    for (int t = 0; t < threads; t++) { pthread_join(tids[t], NULL); hashes += jobs[t].hashes; }
    for (int i = 0; i < count; i++) printf(i ? ",%llu" : "%llu", nonces[i]);
    printf("\n");
    fprintf(stderr, "hashes %llu seconds %.6f\n", hashes, now() - start);
    return 0;
  }
  if (argc >= 3 && strcmp(argv[1], "rate") == 0) {
    double seconds = atof(argv[2]);
    int threads = argc > 3 ? atoi(argv[3]) : 1;
    if (seconds <= 0 || seconds > 60 || threads < 1 || threads > 256) return 2;
    struct job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    double start = now();
    for (int t = 0; t < threads; t++) {
      jobs[t] = (struct job){NULL, 0, t, threads, 0, NULL, 0, start + seconds};
      pthread_create(&tids[t], NULL, rate_loop, &jobs[t]);
    }
    unsigned long long hashes = 0;
    for (int t = 0; t < threads; t++) { pthread_join(tids[t], NULL); hashes += jobs[t].hashes; }
    printf("rate %.0f\n", hashes / (now() - start));
    return 0;
  }
  fprintf(stderr, "usage: native-solver solve <id> <count> <bits> [threads] | rate <seconds> [threads]\n");
  return 2;
}
