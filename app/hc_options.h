/* The command-line parser of every subcommand: a table of options read by one parser that also writes the
   options section of the subcommand's --help. */
#ifndef HC_OPTIONS_H
#define HC_OPTIONS_H

#include <stdio.h>

/* What an option's value is, and what its destination points to. */
typedef enum {
  HC_OPTION_FLAG,   /* no value; int, set to 1 */
  HC_OPTION_HELP,   /* no value; int, set to 1, and the rest of the command line is not read */
  HC_OPTION_STRING, /* const char *, the argument itself (borrowed from argv) */
  HC_OPTION_LIST,   /* hc_option_list; repeatable, each value appended */
  HC_OPTION_INT,    /* int, an integer from min to max */
  HC_OPTION_INT64,  /* int64_t, an integer from min to max */
  HC_OPTION_DOUBLE, /* double, a number from min to max */
  HC_OPTION_CHOICE, /* int, the index of the value in choices */
  HC_OPTION_PARSE   /* whatever parse reads the value into */
} hc_option_kind;

/* The values of an HC_OPTION_LIST, pointers into argv: items has room for one per argument (argc) and is
   owned by the caller. */
typedef struct {
  char **items;
  int n;
} hc_option_list;

typedef struct {
  const char *name;  /* long name, without "--"; NULL ends a table */
  char short_name;   /* e.g. 'h' for -h, or 0 */
  const char *value; /* the value's name in the help ("NAME", "N"); NULL for HC_OPTION_FLAG and HC_OPTION_HELP */
  hc_option_kind kind;
  void *dest;
  const char *help; /* one line per "\n", indented to the help column; NULL: not listed in the help */
  double min, max;  /* HC_OPTION_INT, HC_OPTION_INT64, HC_OPTION_DOUBLE: the range */
  /* What a bad value should have been, in "option --NAME: expected <expected>, got 'VALUE'"; NULL: "an integer
     from MIN to MAX", or for HC_OPTION_CHOICE the choices. */
  const char *expected;
  const char *const *choices;                  /* HC_OPTION_CHOICE: the names, NULL-terminated */
  int (*parse)(const char *value, void *dest); /* HC_OPTION_PARSE: reads value into dest or returns an error */
  const char *missing; /* the whole message when the value is missing; NULL: "option --NAME needs a value" */
} hc_option;

/* The conventions of a command line (hc_options.rules). */
enum {
  /* --NAME=VALUE as well as --NAME VALUE. */
  HC_OPTIONS_EQUALS = 1,
  /* getopt_long's conventions: --NAME=VALUE; a long name may be shortened to any unambiguous prefix; short
     options may be combined (-hx); "--" ends the options and "-" is an operand; operands are handed over only
     once every option has been read. Without it every option is spelled in full, "-..." is always an option,
     and options and operands are read in their order. */
  HC_OPTIONS_GETOPT = 2 | HC_OPTIONS_EQUALS
};

typedef struct {
  const hc_option *options;
  int rules;
  /* Ends the messages on an unknown option, a missing value or an operand refused: " (see hexcontract X --help)". */
  const char *see;
  /* Takes each operand (a non-option argument) or returns an error; NULL: any operand is "unexpected argument". */
  int (*operand)(void *ctx, const char *arg);
  void *ctx;
  int help_column; /* where the help of each option starts */
} hc_options;

/* Reads argv[1..argc-1] into the options' destinations; returns HC_OK or HC_ERR_INPUT with a message that names
   the argument. Destinations not on the command line keep their values (the defaults). */
int hc_options_parse(const hc_options *spec, int argc, char **argv);

/* Writes one line per option, in the table's order: "  -h, --help" or "  --NAME VALUE", then its help from
   help_column on. */
void hc_options_help(FILE *out, const hc_options *spec);

/* Breaks text, words separated by single spaces, into lines of at most width columns that each start at column
   first (a word longer than that keeps its line), replacing spaces with "\n" in place. */
void hc_options_wrap(char *text, int first, int width);

#endif
