/*
 * The native solver an attacker would run against our proof of work (issue 27's adversary
 * 2): the walk of pow/walk.ts in C, on every core (one thread per sub-puzzle stripe), with the
 * fastest of three engines on this CPU:
 *   scalar8, scalar16  eight or sixteen attempts interleaved in scalar code, so the CPU
 *                      overlaps their chains of dependent loads (what walk.wat does with eight);
 *   avx512             sixteen attempts per 512-bit vector, two vectors interleaved, the
 *                      buffers read and written with gathers and scatters (where the CPU has it).
 * Same puzzle as the widget: for i in 0..count-1, the smallest nonce whose attempt passes.
 *
 *   native-solver solve <id> <count> <bits> [threads]   -> solutions (comma-separated), then
 *                                                          "attempts <n> seconds <s> engine <e>" on stderr
 *   native-solver rate <seconds> [threads]              -> "rate <attempts per second> engine <e>"
 *   (NATIVE_ENGINE=scalar8, scalar16 or avx512 picks an engine; otherwise each is timed for a
 *   moment and the fastest runs)
 *
 * Build: gcc -O3 -march=native -pthread native-solver.c
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MBITS 14
#define WORDS (1u << MBITS)
#define STEPS (1u << 16)
#define PAD 16

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static inline uint32_t mix(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; return x ^ (x >> 16);
}
static inline uint32_t rotl13(uint32_t x) { return (x << 13) | (x >> 19); }

static uint32_t seed(const uint32_t key[8], uint32_t nonce) {
  uint32_t x = nonce;
  for (int t = 0; t < 8; t++) x = mix(x ^ key[t]);
  return x;
}

/* The key of puzzle i of challenge id (base64url of 16 bytes): as pow/walk.ts's puzzleKey. */
static void puzzle_key(const char *id, uint32_t i, uint32_t key[8]) {
  static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  uint8_t bytes[24] = {0};
  int n = 0, bitsHeld = 0;
  uint32_t acc = 0;
  for (const char *p = id; *p && n < 24; p++) {
    const char *at = strchr(abc, *p);
    if (!at) break;
    acc = (acc << 6) | (uint32_t)(at - abc);
    bitsHeld += 6;
    if (bitsHeld >= 8) { bitsHeld -= 8; bytes[n++] = (uint8_t)(acc >> bitsHeld); }
  }
  memset(key, 0, 8 * sizeof key[0]);
  for (int b = 0; b < 16 && b < n; b++) key[b >> 2] |= (uint32_t)bytes[b] << ((b & 3) * 8);
  key[4] = i;
  key[5] = 0x77616c6b;
}

/* L attempts of one key, nonces n0..n0+L-1, interleaved in scalar code. */
#define SCALAR(L)                                                                              \
  static void scalar##L(const uint32_t key[8], uint32_t n0, uint32_t *out, uint32_t *mem) {    \
    uint32_t x[L];                                                                             \
    uint32_t *buf[L];                                                                          \
    for (int l = 0; l < L; l++) { x[l] = seed(key, n0 + l); buf[l] = mem + l * (WORDS + PAD); } \
    for (uint32_t j = 0; j < WORDS; j++)                                                       \
      for (int l = 0; l < L; l++) { x[l] = (rotl13(x[l]) * 0x9e3779b1u) ^ j; buf[l][j] = x[l]; } \
    for (uint32_t s = 0; s < STEPS; s++)                                                       \
      for (int l = 0; l < L; l++) {                                                            \
        uint32_t j = x[l] >> (32 - MBITS), v = buf[l][j];                                      \
        x[l] = rotl13((x[l] ^ v) * 0x2545f491u);                                               \
        buf[l][j] = v + x[l];                                                                  \
      }                                                                                        \
    for (int l = 0; l < L; l++) out[l] = mix(x[l] ^ key[0]);                                   \
  }
SCALAR(8)
SCALAR(16)

#ifdef __AVX512F__
#include <immintrin.h>
/* 32 attempts: two vectors of sixteen; buffer word j of lane l at mem[g][j * 16 + l]. */
static void avx512(const uint32_t key[8], uint32_t n0, uint32_t *out, uint32_t *mem) {
  __m512i x[2];
  uint32_t tmp[16];
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int g = 0; g < 2; g++) {
    for (int l = 0; l < 16; l++) tmp[l] = seed(key, n0 + g * 16 + l);
    x[g] = _mm512_loadu_si512(tmp);
  }
  uint32_t *buf[2] = {mem, mem + 16 * WORDS};
  for (uint32_t j = 0; j < WORDS; j++)
    for (int g = 0; g < 2; g++) {
      x[g] = _mm512_xor_si512(_mm512_mullo_epi32(_mm512_rol_epi32(x[g], 13), _mm512_set1_epi32((int)0x9e3779b1u)),
                              _mm512_set1_epi32((int)j));
      _mm512_storeu_si512(buf[g] + j * 16, x[g]);
    }
  for (uint32_t s = 0; s < STEPS; s++)
    for (int g = 0; g < 2; g++) {
      __m512i idx = _mm512_add_epi32(_mm512_slli_epi32(_mm512_srli_epi32(x[g], 32 - MBITS), 4), lane);
      __m512i v = _mm512_i32gather_epi32(idx, buf[g], 4);
      x[g] = _mm512_rol_epi32(_mm512_mullo_epi32(_mm512_xor_si512(x[g], v), _mm512_set1_epi32(0x2545f491)), 13);
      _mm512_i32scatter_epi32(buf[g], idx, _mm512_add_epi32(v, x[g]), 4);
    }
  for (int g = 0; g < 2; g++) {
    _mm512_storeu_si512(tmp, x[g]);
    for (int l = 0; l < 16; l++) out[g * 16 + l] = mix(tmp[l] ^ key[0]);
  }
}
#endif

struct engine {
  const char *name;
  int lanes;
  void (*run)(const uint32_t key[8], uint32_t n0, uint32_t *out, uint32_t *mem);
};
static const struct engine engines[] = {
  {"scalar8", 8, scalar8},
  {"scalar16", 16, scalar16},
#ifdef __AVX512F__
  {"avx512", 32, avx512},
#endif
};
#define ENGINES ((int)(sizeof engines / sizeof engines[0]))
static const struct engine *chosen;

static uint32_t *scratch(void) { return aligned_alloc(64, 32 * (WORDS + PAD) * sizeof(uint32_t)); }

struct job {
  const char *id;
  int bits, first, step, count;
  uint32_t *nonces;
  unsigned long long attempts;
  double until; /* rate mode: stop at this time */
};

static void *solve_stripe(void *arg) {
  struct job *j = arg;
  uint32_t *mem = scratch(), out[32], key[8];
  for (int i = j->first; i < j->count; i += j->step) {
    puzzle_key(j->id, (uint32_t)i, key);
    int found = 0;
    for (uint32_t n0 = 0; !found; n0 += chosen->lanes) {
      chosen->run(key, n0, out, mem);
      for (int l = 0; l < chosen->lanes; l++)
        if ((out[l] >> (32 - j->bits)) == 0) { j->nonces[i] = n0 + l; j->attempts += n0 + l + 1; found = 1; break; }
    }
  }
  free(mem);
  return NULL;
}

static void *rate_stripe(void *arg) {
  struct job *j = arg;
  uint32_t *mem = scratch(), out[32], key[8];
  puzzle_key("AAECAwQFBgcICQoLDA0ODw", (uint32_t)j->first, key);
  for (uint32_t n0 = 0; now() < j->until; n0 += chosen->lanes) {
    chosen->run(key, n0, out, mem);
    j->attempts += chosen->lanes;
  }
  free(mem);
  return NULL;
}

static double rate(double seconds, int threads) {
  pthread_t t[64];
  struct job jobs[64];
  double start = now();
  for (int k = 0; k < threads; k++) {
    jobs[k] = (struct job){.first = k, .until = start + seconds};
    pthread_create(&t[k], NULL, rate_stripe, &jobs[k]);
  }
  unsigned long long total = 0;
  for (int k = 0; k < threads; k++) { pthread_join(t[k], NULL); total += jobs[k].attempts; }
  return total / (now() - start);
}

/* The engine NATIVE_ENGINE names, or the fastest on one core over a short trial each. */
static void choose(void) {
  const char *asked = getenv("NATIVE_ENGINE");
  const struct engine *fastest = NULL;
  double best = -1;
  for (int e = 0; e < ENGINES; e++) {
    if (asked && strcmp(asked, engines[e].name)) continue;
    chosen = &engines[e];
    double r = asked ? 1 : rate(0.4, 1);
    if (r > best) { best = r; fastest = chosen; }
  }
  chosen = fastest;
  if (!chosen) { fprintf(stderr, "unknown NATIVE_ENGINE\n"); exit(2); }
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "rate")) {
    choose();
    int threads = argc > 3 ? atoi(argv[3]) : 1;
    printf("rate %.0f engine %s\n", rate(atof(argv[2]), threads > 64 ? 64 : threads), chosen->name);
    return 0;
  }
  if (argc >= 5 && !strcmp(argv[1], "solve")) {
    choose();
    int count = atoi(argv[3]), bits = atoi(argv[4]), threads = argc > 5 ? atoi(argv[5]) : 1;
    if (threads > count) threads = count;
    if (threads > 64) threads = 64;
    uint32_t *nonces = calloc((size_t)count, sizeof *nonces);
    pthread_t t[64];
    struct job jobs[64];
    double start = now();
    for (int k = 0; k < threads; k++) {
      jobs[k] = (struct job){.id = argv[2], .bits = bits, .first = k, .step = threads, .count = count, .nonces = nonces};
      pthread_create(&t[k], NULL, solve_stripe, &jobs[k]);
    }
    unsigned long long attempts = 0;
    for (int k = 0; k < threads; k++) { pthread_join(t[k], NULL); attempts += jobs[k].attempts; }
    for (int i = 0; i < count; i++) printf(i ? ",%u" : "%u", nonces[i]);
    printf("\n");
    fprintf(stderr, "attempts %llu seconds %.4f engine %s\n", attempts, now() - start, chosen->name);
    return 0;
  }
  fprintf(stderr, "usage: native-solver solve <id> <count> <bits> [threads] | rate <seconds> [threads]\n");
  return 2;
}
