/* Test-only failure injection: HC_INJECT_FAILURE makes one rank fail at a chosen point of the run. */
#ifndef HC_INJECT_H
#define HC_INJECT_H

/* Where an injected failure fires. */
typedef enum {
  HC_INJECT_NONE = 0,
  HC_INJECT_SETUP,   /* while setting up: mesh, halo, basis, allocations, before the first step */
  HC_INJECT_STEP,    /* at the start of a step */
  HC_INJECT_CHECKS,  /* at the start of the self-checks */
  HC_INJECT_RESULTS, /* rank 0, while writing the results file (after its body, before it is renamed into place) */
} hc_inject_phase;

/* Reads HC_INJECT_FAILURE="rank=R,phase=setup|step|checks|results,step=N,kind=runtime|alloc|input" from the
   environment (unset or empty: no injection). Each rank reads it on its own; a malformed value, or one that
   could never fire in this run (a rank past nranks, a step past total_steps (warm-up steps included),
   phase=checks with the checks off, phase=results on a rank other than 0, step=N with a phase that has no
   steps, a key given twice), is HC_ERR_INPUT. Test-only: it makes rank R fail with the error code of kind
   (1, 3 or 2) the first time it reaches phase at or after step N (1-based, warm-up steps included; default 1). */
int hc_inject_init(int nranks, int total_steps, int checks_enabled);

/* Raises the injected error when rank is the chosen one and (phase, step) is where it fires; HC_OK otherwise
   (always, without HC_INJECT_FAILURE). Fires once. */
int hc_inject_check(int rank, hc_inject_phase phase, int step);

#endif
