/* Per-thread record of the last error raised, and the mapping of error codes to exit codes. */
#include "kernels/base/hc_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char hc_err_message[2048];
static _Thread_local char hc_err_location[512];

int hc_error_set(int code, const char *file, int line, const char *func, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(hc_err_message, sizeof(hc_err_message), fmt, ap);
  va_end(ap);
  snprintf(hc_err_location, sizeof(hc_err_location), "%s:%d (%s)", file, line, func);
  return code;
}

const char *hc_error_message(void) {
  return hc_err_message;
}

const char *hc_error_location(void) {
  return hc_err_location;
}

void hc_error_clear(void) {
  hc_err_message[0] = '\0';
  hc_err_location[0] = '\0';
}

int hc_error_exit_code(int code) {
  switch (code) {
    case HC_OK:
      return 0;
    case HC_ERR_INPUT:
    case HC_ERR_UNSUPPORTED:
    case HC_ERR_NOT_BUILT:
      return 2;
    case HC_ERR_RESOURCE:
      return 3;
    default:
      return 1;
  }
}
