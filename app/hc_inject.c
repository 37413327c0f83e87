/* Test-only failure injection: parses HC_INJECT_FAILURE and fires the chosen error once on the chosen rank. */
#define _POSIX_C_SOURCE 200809L
#include "app/hc_inject.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/base/hc_error.h"

/* The parsed switch. File-local: set once by hc_inject_init before the run, read-only after (but for fired). */
static struct {
  hc_inject_phase phase; /* HC_INJECT_NONE: no injection */
  int rank, step, code, fired;
} hc_inject_spec;

static const char *const hc_inject_phase_names[] = {"none", "setup", "step", "checks", "results"};

/* Parses a non-negative int of a HC_INJECT_FAILURE field. */
static int hc_inject_int(const char *spec, const char *key, const char *val, int *out) {
  char *end = NULL;
  long v = strtol(val, &end, 10);
  HC_CHECK(*val && *end == '\0' && v >= 0 && v <= INT_MAX, HC_ERR_INPUT,
           "HC_INJECT_FAILURE=%s: %s must be a non-negative integer, got '%s'", spec, key, val);
  *out = (int)v;
  return HC_OK;
}

int hc_inject_init(int nranks, int total_steps, int checks_enabled) {
  memset(&hc_inject_spec, 0, sizeof(hc_inject_spec));
  const char *env = getenv("HC_INJECT_FAILURE");
  if (!env || !env[0]) return HC_OK;
  char spec[256], buf[256];
  HC_CHECK(strlen(env) < sizeof(buf), HC_ERR_INPUT, "HC_INJECT_FAILURE is longer than %zu characters", sizeof(buf) - 1);
  snprintf(spec, sizeof(spec), "%s", env);
  snprintf(buf, sizeof(buf), "%s", env);
  int rank = 0, step = 1, code = HC_ERR_RUNTIME;
  int have_rank = 0, have_step = 0, have_phase = 0, have_kind = 0;
  hc_inject_phase phase = HC_INJECT_NONE;
  char *save = NULL;
  for (char *field = strtok_r(buf, ",", &save); field; field = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(field, '=');
    HC_CHECK(eq, HC_ERR_INPUT, "HC_INJECT_FAILURE=%s: expected key=value, got '%s'", spec, field);
    *eq = '\0';
    const char *key = field, *val = eq + 1;
    int *seen = strcmp(key, "rank") == 0    ? &have_rank
                : strcmp(key, "step") == 0  ? &have_step
                : strcmp(key, "phase") == 0 ? &have_phase
                : strcmp(key, "kind") == 0  ? &have_kind
                                            : NULL;
    HC_CHECK(seen, HC_ERR_INPUT, "HC_INJECT_FAILURE=%s: unknown key '%s' (rank, phase, step or kind)", spec, key);
    HC_CHECK(!*seen, HC_ERR_INPUT, "HC_INJECT_FAILURE=%s: %s is given twice; give each key once", spec, key);
    *seen = 1;
    if (strcmp(key, "rank") == 0) {
      HC_CALL(hc_inject_int(spec, key, val, &rank));
    } else if (strcmp(key, "step") == 0) {
      HC_CALL(hc_inject_int(spec, key, val, &step));
    } else if (strcmp(key, "phase") == 0) {
      for (int p = HC_INJECT_SETUP; p <= HC_INJECT_RESULTS; p++)
        if (strcmp(val, hc_inject_phase_names[p]) == 0) phase = (hc_inject_phase)p;
      HC_CHECK(phase != HC_INJECT_NONE, HC_ERR_INPUT,
               "HC_INJECT_FAILURE=%s: phase must be setup, step, checks or results, got '%s'", spec, val);
    } else if (strcmp(val, "runtime") == 0) {
      code = HC_ERR_RUNTIME;
    } else if (strcmp(val, "alloc") == 0) {
      code = HC_ERR_RESOURCE;
    } else if (strcmp(val, "input") == 0) {
      code = HC_ERR_INPUT;
    } else {
      return HC_ERROR(HC_ERR_INPUT, "HC_INJECT_FAILURE=%s: kind must be runtime, alloc or input, got '%s'", spec, val);
    }
  }
  HC_CHECK(phase != HC_INJECT_NONE, HC_ERR_INPUT, "HC_INJECT_FAILURE=%s: phase=setup|step|checks|results is required",
           spec);
  /* A failure that can never fire would let a failure test pass without testing anything. */
  HC_CHECK(rank < nranks, HC_ERR_INPUT, "HC_INJECT_FAILURE=%s: rank=%d does not exist: this run has %d rank%s (0..%d)",
           spec, rank, nranks, nranks == 1 ? "" : "s", nranks - 1);
  HC_CHECK(phase != HC_INJECT_RESULTS || rank == 0, HC_ERR_INPUT,
           "HC_INJECT_FAILURE=%s: phase=results fires on rank 0 only (the rank that writes the results file), got "
           "rank=%d",
           spec, rank);
  HC_CHECK(phase != HC_INJECT_CHECKS || checks_enabled, HC_ERR_INPUT,
           "HC_INJECT_FAILURE=%s: phase=checks never comes: checks.enabled is false in this run", spec);
  if (phase == HC_INJECT_STEP || phase == HC_INJECT_CHECKS) {
    HC_CHECK(step >= 1 && step <= total_steps, HC_ERR_INPUT,
             "HC_INJECT_FAILURE=%s: step must be 1..%d, the steps of this run (warm-up steps included), got %d", spec,
             total_steps, step);
  } else {
    HC_CHECK(!have_step, HC_ERR_INPUT,
             "HC_INJECT_FAILURE=%s: step applies to phase=step and phase=checks only, not to phase=%s", spec,
             hc_inject_phase_names[phase]);
  }
  hc_inject_spec.phase = phase;
  hc_inject_spec.rank = rank;
  hc_inject_spec.step = step;
  hc_inject_spec.code = code;
  return HC_OK;
}

int hc_inject_check(int rank, hc_inject_phase phase, int step) {
  if (hc_inject_spec.phase == HC_INJECT_NONE || hc_inject_spec.fired || phase != hc_inject_spec.phase ||
      rank != hc_inject_spec.rank)
    return HC_OK;
  if ((phase == HC_INJECT_STEP || phase == HC_INJECT_CHECKS) && step < hc_inject_spec.step) return HC_OK;
  hc_inject_spec.fired = 1;
  const char *what = hc_inject_spec.code == HC_ERR_RESOURCE ? "out of host memory"
                     : hc_inject_spec.code == HC_ERR_INPUT  ? "bad input found late"
                                                            : "runtime failure";
  const char *where = phase == HC_INJECT_SETUP    ? "while setting up the run"
                      : phase == HC_INJECT_STEP   ? "at step"
                      : phase == HC_INJECT_CHECKS ? "in the self-checks after step"
                                                  : "while writing the results file";
  if (phase == HC_INJECT_STEP || phase == HC_INJECT_CHECKS) {
    return HC_ERROR(hc_inject_spec.code, "%s %s %d (injected by HC_INJECT_FAILURE, a test-only switch)", what, where,
                    step);
  }
  return HC_ERROR(hc_inject_spec.code, "%s %s (injected by HC_INJECT_FAILURE, a test-only switch)", what, where);
}
