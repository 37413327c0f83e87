/* What the MPI tests share: every rank runs the same checks and counts its failures (EXPECT); the counts are
   summed over ranks before a single assertion (assert_all_ranks_ok), so all ranks pass or fail each test
   together and none is left waiting in a collective. Include after <cmocka.h> and <mpi.h>; main sets rank_ and
   nranks_. */
#ifndef HC_TEST_MPI_H
#define HC_TEST_MPI_H

#include <stdint.h>
#include <stdio.h>

static int rank_, nranks_;
static int64_t fails_;

#define EXPECT(cond, ...)                                                          \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      if (fails_++ < 5) {                                                          \
        fprintf(stderr, "rank %d: %s:%d: %s: ", rank_, __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__);                                              \
        fprintf(stderr, "\n");                                                     \
      }                                                                            \
    }                                                                              \
  } while (0)

/* Asserts, on every rank alike, that no rank failed an EXPECT since the last call. */
static inline void assert_all_ranks_ok(void) {
  int64_t total = 0, local = fails_;
  fails_ = 0;
  MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (total) fail_msg("%lld failed checks over %d ranks (see stderr)", (long long)total, nranks_);
}

#endif
