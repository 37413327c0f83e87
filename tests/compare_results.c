/* Compares the rank-count-independent numbers of several results files (partition independence,
   app/README.md): the DataData sums, the norms of the assembled vectors and the check values, matched by name. Usage:
     compare_results exact|RELTOL FILE...
   exact: bitwise equal (run.deterministic); RELTOL: |a - b| <= RELTOL * max(|a|, |b|). A nodal sum, which may
   cancel to round-off (the sum of a stiffness matrix's rows), is compared against RELTOL times sqrt(N) times its
   vector's 2-norm, N the mesh's nodes (decomposition.num_global_nodes): that bounds the vector's 1-norm, the
   magnitude a sum's rounding error is relative to (|fl(sum y) - sum y| <= gamma_(N-1) |y|_1).
   Also: compare_results --fields FILE (every documented field is there); compare_results --roofline FILE [CSV]
   (the roofline section is consistent, and the CSV's last row carries its percentages); compare_results
   --no-roofline FILE (a run with run.roofline false reports no roofline figure). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_VALUES 128
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-result"
#endif

typedef struct {
  char name[128];
  double value, scale; /* scale: the magnitude the value is compared against (0: its own) */
  int nodal;           /* from assembled nodal vectors: 1e-12 relative even in exact mode */
} entry;

static yaml_node_t *get(yaml_document_t *doc, yaml_node_t *map, const char *key) {
  if (!map || map->type != YAML_MAPPING_NODE) return NULL;
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key);
    if (k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, key) == 0)
      return yaml_document_get_node(doc, p->value);
  }
  return NULL;
}

static double num(yaml_node_t *n) {
  if (!n || n->type != YAML_SCALAR_NODE) return NAN;
  const char *s = (const char *)n->data.scalar.value;
  if (strcmp(s, ".nan") == 0) return NAN;
  return strtod(s, NULL);
}

static int load(const char *path, entry *e, int *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "%s: cannot open\n", path), 1;
  yaml_parser_t parser;
  yaml_document_t doc;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_file(&parser, f);
  if (!yaml_parser_load(&parser, &doc)) return fprintf(stderr, "%s: not YAML\n", path), 1;
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  yaml_node_t *values = get(&doc, root, "values"), *checks = get(&doc, root, "checks");
  /* the nodal sums' scale: sqrt(N) |y|_2 >= |y|_1 (1 when the file does not say N) */
  const double nodes = num(get(&doc, get(&doc, root, "decomposition"), "num_global_nodes"));
  const double l1_over_l2 = nodes >= 1 ? sqrt(nodes) : 1;
  *n = 0;
  if (values && values->type == YAML_MAPPING_NODE) {
    for (yaml_node_pair_t *p = values->data.mapping.pairs.start; p < values->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node(&doc, p->key), *v = yaml_document_get_node(&doc, p->value);
      const char *kn = (const char *)k->data.scalar.value;
      if (*n > MAX_VALUES - 3) return fprintf(stderr, "%s: more than %d values\n", path, MAX_VALUES - 3), 1;
      if (v->type != YAML_MAPPING_NODE) continue;
      yaml_node_t *sum = get(&doc, v, "sum"), *ns = get(&doc, v, "nodal_sum"), *nn = get(&doc, v, "nodal_norm");
      if (sum) {
        snprintf(e[*n].name, 128, "values.%s.sum", kn);
        e[*n].value = num(sum), e[*n].scale = 0, e[*n].nodal = 0, (*n)++;
      }
      if (nn) {
        snprintf(e[*n].name, 128, "values.%s.nodal_norm", kn);
        e[*n].value = num(nn), e[*n].scale = 0, e[*n].nodal = 1, (*n)++;
      }
      if (ns) {
        snprintf(e[*n].name, 128, "values.%s.nodal_sum", kn);
        e[*n].value = num(ns), e[*n].scale = l1_over_l2 * fabs(num(nn)), e[*n].nodal = 1, (*n)++;
      }
    }
  }
  if (checks && checks->type == YAML_MAPPING_NODE) {
    for (yaml_node_pair_t *p = checks->data.mapping.pairs.start; p < checks->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node(&doc, p->key), *v = yaml_document_get_node(&doc, p->value);
      const char *kn = (const char *)k->data.scalar.value;
      /* Only the checks that are global sums; largest-row checks are maxima of round-off. */
      if (strcmp(kn, "volume") && strcmp(kn, "mass_sum") && strcmp(kn, "exactness")) continue;
      if (*n >= MAX_VALUES) return fprintf(stderr, "%s: more than %d values\n", path, MAX_VALUES), 1;
      snprintf(e[*n].name, 128, "checks.%s.value", kn);
      e[*n].value = num(get(&doc, v, "value")), e[*n].scale = 0, e[*n].nodal = 0, (*n)++;
    }
  }
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  fclose(f);
  return 0;
}

/* The node at a dotted path ("timers.step.max"; "ranks.0.host" indexes a sequence). */
static yaml_node_t *path_get(yaml_document_t *doc, yaml_node_t *n, const char *path) {
  char buf[256];
  snprintf(buf, sizeof(buf), "%s", path);
  for (char *part = strtok(buf, "."); part && n; part = strtok(NULL, ".")) {
    if (n->type == YAML_SEQUENCE_NODE) {
      long i = strtol(part, NULL, 10);
      if (i < 0 || n->data.sequence.items.start + i >= n->data.sequence.items.top) return NULL;
      n = yaml_document_get_node(doc, n->data.sequence.items.start[i]);
    } else {
      n = get(doc, n, part);
    }
  }
  return n;
}

/* --fields FILE: the results file parses and holds every field the README documents. */
static int check_fields(const char *path) {
  static const char *const required[] = {"schema",
                                         "status",
                                         "date",
                                         "build.version",
                                         "build.git_revision",
                                         "build.build_type",
                                         "build.c_compiler",
                                         "build.c_flags",
                                         "build.mpi_library",
                                         "deck.mesh.cells",
                                         "deck.run.backend",
                                         "deck.kernels.enabled",
                                         "decomposition.ranks",
                                         "decomposition.rank_grid",
                                         "decomposition.num_global_cells",
                                         "decomposition.cells_per_rank.min",
                                         "decomposition.cells_per_rank.max",
                                         "decomposition.nodes_per_rank.max",
                                         "decomposition.halo_bytes_per_exchange.max",
                                         "ranks.0.host",
                                         "ranks.0.device",
                                         "timers.timed_steps",
                                         "timers.total_seconds",
                                         "timers.celldata.avg",
                                         "timers.contract.max",
                                         "timers.assembly.imbalance",
                                         "timers.halo.min",
                                         "timers.reduction.avg",
                                         "timers.step.max",
                                         "kernels.FieldFieldTensor.variant",
                                         "kernels.FieldFieldTensor.chosen_variant",
                                         "kernels.FieldFieldTensor.contract_seconds.max",
                                         "kernels.DataDataScalar.gflops",
                                         "kernels.DataFieldVector.gbytes_per_second",
                                         "figures_of_merit.cell_steps_per_second",
                                         "figures_of_merit.seconds_per_step",
                                         "checks.volume.passed",
                                         "checks.volume.value",
                                         "checks.volume.tolerance",
                                         "checks.patch_test.passed",
                                         "checks.exactness.expected",
                                         "checks.device_vs_host.passed",
                                         "values.DataDataScalar.sum",
                                         "values.FieldFieldVector.nodal_norm",
                                         NULL};
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "%s: cannot open\n", path), 1;
  yaml_parser_t parser;
  yaml_document_t doc;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_file(&parser, f);
  if (!yaml_parser_load(&parser, &doc)) return fprintf(stderr, "%s: not YAML: %s\n", path, parser.problem), 1;
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  int missing = 0;
  for (int i = 0; required[i]; i++) {
    if (!path_get(&doc, root, required[i])) fprintf(stderr, "%s: no %s\n", path, required[i]), missing++;
  }
  yaml_node_t *schema = get(&doc, root, "schema");
  if (!schema || strcmp((char *)schema->data.scalar.value, "hexcontract-results/1") != 0)
    fprintf(stderr, "%s: schema is not hexcontract-results/1\n", path), missing++;
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  fclose(f);
  printf("%s: %s\n", path, missing ? "fields missing" : "every documented field is there");
  return missing ? 1 : 0;
}

static yaml_node_t *load_doc(const char *path, yaml_document_t *doc) {
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "%s: cannot open\n", path), NULL;
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_file(&parser, f);
  int ok = yaml_parser_load(&parser, doc);
  yaml_parser_delete(&parser);
  fclose(f);
  if (!ok) return fprintf(stderr, "%s: not YAML\n", path), NULL;
  return yaml_document_get_root_node(doc);
}

static int near(double a, double b, double rel) {
  return fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

/* The last field of the header and of the last row of a CSV file, split at commas (no quoted commas). */
static int csv_last(const char *path, char header[4096], char row[4096]) {
  FILE *f = fopen(path, "r");
  if (!f) return fprintf(stderr, "%s: cannot open\n", path), 1;
  char line[4096];
  header[0] = row[0] = '\0';
  while (fgets(line, sizeof(line), f)) {
    line[strcspn(line, "\n")] = '\0';
    if (!header[0]) {
      snprintf(header, 4096, "%s", line);
    } else {
      snprintf(row, 4096, "%s", line);
    }
  }
  fclose(f);
  return row[0] ? 0 : (fprintf(stderr, "%s: no row\n", path), 1);
}

/* Field i (0-based from the end) of a comma-separated line. */
static const char *field_from_end(char *line, int i, char *buf, size_t n) {
  for (int k = 0; k < i; k++) {
    char *c = strrchr(line, ',');
    if (!c) return NULL;
    *c = '\0';
  }
  char *c = strrchr(line, ',');
  snprintf(buf, n, "%s", c ? c + 1 : line);
  return buf;
}

/* --roofline FILE [CSV]: the roofline section is there and holds together: positive rates; per memory phase
   that ran, percent = 100 roofline / measured, finite and positive; the step's bytes and roofline the sums of
   the memory phases'; halo and reduction on no memory roofline; the CSV's last two columns the step's and the
   cell data's percent. --no-roofline FILE: measured false and nothing else. */
static int check_roofline(const char *path, const char *csv, int want) {
  yaml_document_t doc;
  yaml_node_t *root = load_doc(path, &doc), *roof = root ? get(&doc, root, "roofline") : NULL;
  if (!roof) return fprintf(stderr, "%s: no roofline section\n", path), 1;
  int bad = 0;
  yaml_node_t *m = get(&doc, roof, "measured");
  int measured = m && m->type == YAML_SCALAR_NODE && strcmp((char *)m->data.scalar.value, "true") == 0;
  if (measured != want) fprintf(stderr, "%s: roofline.measured is not %s\n", path, want ? "true" : "false"), bad++;
  if (!want) {
    int keys =
        roof->type == YAML_MAPPING_NODE ? (int)(roof->data.mapping.pairs.top - roof->data.mapping.pairs.start) : 0;
    if (keys != 1) fprintf(stderr, "%s: roofline has %d keys, expected measured only\n", path, keys), bad++;
    printf("%s: %s\n", path, bad ? "roofline WRONG" : "no roofline figures, as asked");
    yaml_document_delete(&doc);
    return bad ? 1 : 0;
  }
  double bw = num(path_get(&doc, roof, "copy_gbytes_per_second.min"));
  if (!(bw > 0 && isfinite(bw))) fprintf(stderr, "%s: copy bandwidth %g\n", path, bw), bad++;
  static const char *const memory[] = {"celldata", "contract", "transfer", "assembly"};
  double sum_bytes = 0, sum_roof = 0, pct[2] = {NAN, NAN};
  for (int i = 0; i < 4; i++) {
    char key[64];
    snprintf(key, sizeof(key), "phases.%s", memory[i]);
    yaml_node_t *ph = path_get(&doc, roof, key);
    if (!ph) continue; /* transfer: device backends only */
    double b = num(get(&doc, ph, "bytes_per_step")), r = num(get(&doc, ph, "roofline_seconds"));
    double t = num(get(&doc, ph, "measured_seconds")), p = num(get(&doc, ph, "percent"));
    sum_bytes += b, sum_roof += r;
    if (t == 0 && b == 0) continue; /* transfer on the host: nothing crosses, nothing measured */
    if (!(b > 0 && r > 0 && t > 0 && isfinite(p) && p > 0 && near(p, 100 * r / t, 1e-9)))
      fprintf(stderr, "%s: roofline.%s: bytes %g roofline %g s measured %g s percent %g\n", path, key, b, r, t, p),
          bad++;
    if (i == 0) pct[1] = p;
  }
  yaml_node_t *step = path_get(&doc, roof, "phases.step");
  double sb = num(get(&doc, step, "bytes_per_step")), sr = num(get(&doc, step, "roofline_seconds"));
  double st = num(get(&doc, step, "measured_seconds"));
  pct[0] = num(get(&doc, step, "percent"));
  if (!near(sb, sum_bytes, 1e-12) || !near(sr, sum_roof, 1e-9))
    fprintf(stderr, "%s: step bytes %g roofline %g, the phases sum to %g and %g\n", path, sb, sr, sum_bytes, sum_roof),
        bad++;
  if (!(isfinite(pct[0]) && pct[0] > 0 && near(pct[0], 100 * sr / st, 1e-9)))
    fprintf(stderr, "%s: step percent %g, roofline %g s over measured %g s\n", path, pct[0], sr, st), bad++;
  const char *const network[] = {"phases.halo", "phases.reduction"};
  for (int i = 0; i < 2; i++) {
    yaml_node_t *ph = path_get(&doc, roof, network[i]), *mb = ph ? get(&doc, ph, "memory_bound") : NULL;
    if (!mb || strcmp((char *)mb->data.scalar.value, "false") != 0 || get(&doc, ph, "percent") ||
        get(&doc, ph, "roofline_seconds"))
      fprintf(stderr, "%s: roofline.%s should be on no memory roofline\n", path, network[i]), bad++;
  }
  yaml_document_delete(&doc);
  if (csv) {
    char header[4096], row[4096], a[64], b[64];
    if (csv_last(csv, header, row)) return 1;
    const char *h0 = field_from_end(header, 0, a, sizeof(a));
    if (!h0 || strcmp(h0, "celldata_roofline_pct") != 0) fprintf(stderr, "%s: last column %s\n", csv, h0), bad++;
    for (int i = 0; i < 2; i++) {
      char copy[4096];
      snprintf(copy, sizeof(copy), "%s", row);
      const char *v = field_from_end(copy, 1 - i, b, sizeof(b));
      double x = v ? strtod(v, NULL) : NAN;
      if (!near(x, pct[i], 1e-5))
        fprintf(stderr, "%s: column %d from the end is %s, the results file says %.9g\n", csv, 2 - i, v ? v : "-",
                pct[i]),
            bad++;
    }
  }
  printf("%s: %s\n", path, bad ? "roofline WRONG" : "the roofline holds together");
  return bad ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--fields") == 0) return check_fields(argv[2]);
  if ((argc == 3 || argc == 4) && strcmp(argv[1], "--roofline") == 0)
    return check_roofline(argv[2], argc == 4 ? argv[3] : NULL, 1);
  if (argc == 3 && strcmp(argv[1], "--no-roofline") == 0) return check_roofline(argv[2], NULL, 0);
  if (argc < 4) return fprintf(stderr, "usage: compare_results exact|RELTOL FILE FILE... | --fields FILE\n"), 2;
  int exact = strcmp(argv[1], "exact") == 0;
  double tol = exact ? 0 : strtod(argv[1], NULL);
  static entry ref[MAX_VALUES], cur[MAX_VALUES];
  int nref, ncur, bad = 0;
  if (load(argv[2], ref, &nref)) return 1;
  if (nref == 0) return fprintf(stderr, "%s: no values\n", argv[2]), 1;
  for (int f = 3; f < argc; f++) {
    if (load(argv[f], cur, &ncur)) return 1;
    /* Values are matched by name, not by their place in the file: each of the reference's must be there once,
       and no other. */
    int used[MAX_VALUES] = {0};
    for (int i = 0; i < nref; i++) {
      int j = 0;
      while (j < ncur && strcmp(cur[j].name, ref[i].name) != 0) j++;
      if (j == ncur) {
        fprintf(stderr, "%s has no %s (%s has)\n", argv[f], ref[i].name, argv[2]);
        bad++;
        continue;
      }
      used[j] = 1;
      double a = ref[i].value, b = cur[j].value;
      double scale = ref[i].scale > 0 ? ref[i].scale : fmax(fabs(a), fabs(b));
      int ok = exact && !ref[i].nodal ? memcmp(&a, &b, sizeof(a)) == 0 : fabs(a - b) <= (exact ? 1e-12 : tol) * scale;
      if (!ok || isnan(a) || isnan(b)) {
        fprintf(stderr, "%s: %s = %.17g but %s has %.17g\n", argv[f], cur[j].name, b, argv[2], a);
        bad++;
      }
    }
    for (int j = 0; j < ncur; j++) {
      if (!used[j]) {
        fprintf(stderr, "%s has %s, which %s has not\n", argv[f], cur[j].name, argv[2]);
        bad++;
      }
    }
  }
  printf("%d values of %d files compared (%s): %s\n", nref, argc - 2, exact ? "bitwise" : argv[1],
         bad ? "DIFFER" : "the same");
  return bad ? 1 : 0;
}
