/* The command-line parser of every subcommand and the options section of its --help, both from one table. */
#include "app/hc_options.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/hc_kernels.h"

static int hc_option_takes_value(const hc_option *o) {
  return o->kind != HC_OPTION_FLAG && o->kind != HC_OPTION_HELP;
}

/* The option of the first len characters of name: its full name, or under getopt's rules the one option that
   name begins (NULL when none or several do). */
static const hc_option *hc_options_find_long(const hc_options *spec, const char *name, size_t len) {
  const hc_option *found = NULL;
  int prefixes = 0;
  for (const hc_option *o = spec->options; o->name; o++) {
    if (strncmp(o->name, name, len) != 0) continue;
    if (strlen(o->name) == len) return o;
    found = o;
    prefixes++;
  }
  return (spec->rules & HC_OPTIONS_GETOPT) == HC_OPTIONS_GETOPT && prefixes == 1 ? found : NULL;
}

static const hc_option *hc_options_find_short(const hc_options *spec, char c) {
  for (const hc_option *o = spec->options; o->name; o++) {
    if (c && o->short_name == c) return o;
  }
  return NULL;
}

/* "option --NAME: expected ..., got 'VALUE'". */
static int hc_option_bad_value(const hc_option *o, const char *value) {
  char expected[512];
  if (o->expected) {
    snprintf(expected, sizeof(expected), "%s", o->expected);
  } else if (o->kind == HC_OPTION_CHOICE) {
    int n = 0;
    while (o->choices[n]) n++;
    hc_names_format(o->choices, n, " or ", expected, sizeof(expected));
  } else if (o->kind == HC_OPTION_DOUBLE) {
    snprintf(expected, sizeof(expected), "a number from %g to %g", o->min, o->max);
  } else {
    snprintf(expected, sizeof(expected), "an integer from %lld to %lld", (long long)o->min, (long long)o->max);
  }
  return HC_ERROR(HC_ERR_INPUT, "option --%s: expected %s, got '%s'", o->name, expected, value);
}

/* Stores the value of option o (NULL for an option without one); *stop is set by HC_OPTION_HELP. */
static int hc_option_set(const hc_option *o, char *value, int *stop) {
  char *end = NULL;
  errno = 0;
  switch (o->kind) {
    case HC_OPTION_HELP:
      *stop = 1;
      /* fall through */
    case HC_OPTION_FLAG:
      *(int *)o->dest = 1;
      return HC_OK;
    case HC_OPTION_STRING:
      *(const char **)o->dest = value;
      return HC_OK;
    case HC_OPTION_LIST: {
      hc_option_list *list = o->dest;
      list->items[list->n++] = value;
      return HC_OK;
    }
    case HC_OPTION_INT:
    case HC_OPTION_INT64: {
      long long v = strtoll(value, &end, 10);
      if (errno || end == value || *end || v < o->min || v > o->max) return hc_option_bad_value(o, value);
      if (o->kind == HC_OPTION_INT) {
        *(int *)o->dest = (int)v;
      } else {
        *(int64_t *)o->dest = v;
      }
      return HC_OK;
    }
    case HC_OPTION_DOUBLE: {
      double v = strtod(value, &end);
      if (errno || end == value || *end || !(v >= o->min && v <= o->max)) return hc_option_bad_value(o, value);
      *(double *)o->dest = v;
      return HC_OK;
    }
    case HC_OPTION_CHOICE:
      for (int i = 0; o->choices[i]; i++) {
        if (strcmp(value, o->choices[i]) == 0) {
          *(int *)o->dest = i;
          return HC_OK;
        }
      }
      return hc_option_bad_value(o, value);
    case HC_OPTION_PARSE:
      return o->parse(value, o->dest);
  }
  return HC_ERROR(HC_ERR_RUNTIME, "option --%s: unknown kind %d", o->name, (int)o->kind);
}

static int hc_options_operand(const hc_options *spec, const char *arg) {
  if (spec->operand) return spec->operand(spec->ctx, arg);
  return HC_ERROR(HC_ERR_INPUT, "unexpected argument '%s'%s", arg, spec->see);
}

/* One pass over the command line: the options (when options is set) and the operands (when operands is set),
   in their order. */
static int hc_options_read(const hc_options *spec, int argc, char **argv, int options, int operands, int *stop) {
  const int getopt_rules = (spec->rules & HC_OPTIONS_GETOPT) == HC_OPTIONS_GETOPT;
  int only_operands = 0;
  for (int i = 1; i < argc && !*stop; i++) {
    char *arg = argv[i];
    if (only_operands || arg[0] != '-' || (getopt_rules && arg[1] == '\0')) {
      if (operands) HC_CALL(hc_options_operand(spec, arg));
      continue;
    }
    if (getopt_rules && strcmp(arg, "--") == 0) {
      only_operands = 1;
      continue;
    }
    const hc_option *o = NULL;
    char *value = NULL;
    if (arg[1] == '-') {
      char *name = arg + 2, *eq = spec->rules & HC_OPTIONS_EQUALS ? strchr(name, '=') : NULL;
      o = hc_options_find_long(spec, name, eq ? (size_t)(eq - name) : strlen(name));
      HC_CHECK(o && (!eq || hc_option_takes_value(o)), HC_ERR_INPUT, "unknown option '%s'%s", arg, spec->see);
      if (eq) value = eq + 1;
    } else {
      /* -x, or under getopt's rules -xyz (flags then at most one option with a value, which takes the rest). */
      char *c = arg + 1;
      for (;;) {
        o = hc_options_find_short(spec, *c);
        HC_CHECK(o && (getopt_rules || c[1] == '\0'), HC_ERR_INPUT, "unknown option '%s'%s", arg, spec->see);
        if (hc_option_takes_value(o) || c[1] == '\0') break;
        if (options) HC_CALL(hc_option_set(o, NULL, stop));
        if (*stop) return HC_OK;
        c++;
      }
      if (hc_option_takes_value(o) && c[1] != '\0') value = c + 1;
    }
    if (hc_option_takes_value(o) && !value) {
      if (i + 1 >= argc && o->missing) return HC_ERROR(HC_ERR_INPUT, "%s", o->missing);
      HC_CHECK(i + 1 < argc, HC_ERR_INPUT, "option %s needs a value%s", arg, spec->see);
      value = argv[++i];
    }
    if (options) HC_CALL(hc_option_set(o, value, stop));
  }
  return HC_OK;
}

int hc_options_parse(const hc_options *spec, int argc, char **argv) {
  int stop = 0;
  if ((spec->rules & HC_OPTIONS_GETOPT) != HC_OPTIONS_GETOPT) return hc_options_read(spec, argc, argv, 1, 1, &stop);
  /* getopt_long permutes the operands behind the options: every option first, then the operands. */
  HC_CALL(hc_options_read(spec, argc, argv, 1, 0, &stop));
  if (stop) return HC_OK;
  return hc_options_read(spec, argc, argv, 0, 1, &stop);
}

void hc_options_help(FILE *out, const hc_options *spec) {
  for (const hc_option *o = spec->options; o->name; o++) {
    if (!o->help) continue;
    int col = fprintf(out, "  ");
    if (o->short_name) col += fprintf(out, "-%c, ", o->short_name);
    col += fprintf(out, "--%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
    for (const char *line = o->help; line;) {
      const char *nl = strchr(line, '\n');
      int len = nl ? (int)(nl - line) : (int)strlen(line);
      fprintf(out, "%*s%.*s\n", col < spec->help_column ? spec->help_column - col : 1, "", len, line);
      col = 0;
      line = nl ? nl + 1 : NULL;
    }
  }
}

void hc_options_wrap(char *text, int first, int width) {
  int col = first;
  for (char *p = text; *p;) {
    int len = (int)strcspn(p, " ");
    if (col > first && col + 1 + len > width) {
      p[-1] = '\n';
      col = first;
    }
    col += (col > first) + len;
    p += len;
    if (*p) p++;
  }
}
