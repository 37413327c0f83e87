/* Error codes and the checking macros that every layer of hexcontract uses. */
#ifndef HC_ERROR_H
#define HC_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Every function that can fail returns one of these; HC_OK is 0. */
typedef enum {
  HC_OK = 0,
  HC_ERR_RUNTIME = 1,     /* a runtime or verification failure (exit code 1) */
  HC_ERR_INPUT = 2,       /* bad input or usage: deck, option, file (exit code 2) */
  HC_ERR_RESOURCE = 3,    /* out of memory, no device (exit code 3) */
  HC_ERR_UNSUPPORTED = 4, /* a variant or backend cannot handle this request (exit code 2) */
  HC_ERR_NOT_BUILT = 5,   /* the backend was not built into this binary (exit code 2) */
} hc_error_code;

/* Records an error (message, and where it was raised) for the calling thread and returns code.
   The message says what was wrong and what would be right; the location is kept apart so that
   user-facing messages stay clean. */
int hc_error_set(int code, const char *file, int line, const char *func, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* The message of the last error raised on this thread ("" when none). */
const char *hc_error_message(void);
/* "file:line (function)" of the last error raised on this thread ("" when none). */
const char *hc_error_location(void);
/* Forgets the last error of this thread. */
void hc_error_clear(void);
/* The process exit code documented for an error code (0, 1, 2 or 3). */
int hc_error_exit_code(int code);

#define HC_ERROR(code, ...) hc_error_set((code), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* Returns from the calling function with an error when cond is false. */
#define HC_CHECK(cond, code, ...)                    \
  do {                                               \
    if (!(cond)) return HC_ERROR(code, __VA_ARGS__); \
  } while (0)

/* Propagates a failing call's error code. */
#define HC_CALL(expr)                      \
  do {                                     \
    int hc_call_err_ = (expr);             \
    if (hc_call_err_) return hc_call_err_; \
  } while (0)

/* The same for functions that release resources through one cleanup label: they declare
   `int ierr = HC_OK;` and end with `label: ...; return ierr;`. */
#define HC_CALL_GOTO(expr, label) \
  do {                            \
    ierr = (expr);                \
    if (ierr) goto label;         \
  } while (0)

#define HC_CHECK_GOTO(cond, code, label, ...) \
  do {                                        \
    if (!(cond)) {                            \
      ierr = HC_ERROR(code, __VA_ARGS__);     \
      goto label;                             \
    }                                         \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif
