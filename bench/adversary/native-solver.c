/*
 * The native solver an attacker would run against our proof of work (issue 27's adversary
 * 2): SHA-256 through OpenSSL's libcrypto, which uses the CPU's SHA extensions (SHA-NI) where
 * present, on every core (one thread per sub-puzzle stripe). Same puzzle as the widget: for
 * i in 0..count-1, the smallest decimal nonce n with SHA-256("<id>.<i>:<n>") starting with
 * `bits` zero bits.
 *
 *   native-solver solve <id> <count> <bits> [threads]   -> solutions (comma-separated), then
 *                                                          "hashes <n> seconds <s>" on stderr
 *   native-solver rate <seconds> [threads]              -> "rate <hashes per second>"
 *
 * Build: gcc -O3 -march=native -pthread native-solver.c -lcrypto
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * The prefix is hashed once (its state kept: what a "midstate" attacker does when the prefix
 * fills whole 64-byte blocks; for shorter prefixes SHA256_Update only buffers it), then each
 * nonce is the copied state plus its digits.
 */
static unsigned long long solve_one(const char *id, int i, int bits, unsigned long long *hashes) {
  char prefix[256], nonce[24];
  int plen = snprintf(prefix, sizeof prefix, "%s.%d:", id, i);
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
