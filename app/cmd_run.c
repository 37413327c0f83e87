/* `hexcontract [DECK.yaml] [--set key=value ...]`: the proxy run under MPI, its summary and results file. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/hc_app.h"
#include "app/hc_host.h"
#include "app/hc_inject.h"
#include "app/hc_options.h"
#include "app/hc_run_results.h"
#include "app/hc_run.h"
#include "app/hc_signal.h"
#include "app/hc_timer.h"
#include "hc_config.h"
#include "io/hc_deck.h"
#include "io/hc_path.h"
#include "io/hc_meshfile.h"
#include "io/hc_vtk.h"
#include "kernels/base/hc_mpi.h"

static void hc_run_usage(FILE *out, const hc_options *spec) {
  fprintf(out,
          "Usage: mpirun -np N hexcontract [DECK.yaml] [--set key=value ...]\n"
          "\n"
          "Runs the proxy workload: every rank builds its block of the hexahedral mesh, computes its cells'\n"
          "basis, quadrature and geometry data, runs the enabled contractions every step, assembles across\n"
          "ranks and checks its own answer (app/README.md). With no deck the defaults run (the\n"
          "same as inputs/default.yaml). Every deck key is documented in inputs/README.md.\n"
          "\n"
          "Options:\n");
  hc_options_help(out, spec);
  fprintf(out,
          "\n"
          "Writes a one-screen summary on rank 0 and a YAML results file (output.dir/output.results); with\n"
          "output.vtk: true also ParaView files of the mesh and its nodal vectors (NAME.pvtu, a .vtu per rank,\n"
          "and NAME.pvd with output.vtk_every, NAME the results file's name without .yaml). With\n"
          "run.roofline: true (the default) every rank first measures its backend's copy bandwidth (a fraction\n"
          "of a second) and the summary shows the step's roofline: per phase its compulsory bytes, the least\n"
          "time they take at that bandwidth, and the %% of it reached.\n"
          "Exit codes: 0 ran and verified; 1 a check or the run failed; 2 bad input (the message names the\n"
          "deck file:line:column or the --set option); 3 out of memory or device; 130 (SIGINT) or 143 (SIGTERM):\n"
          "stopped by the signal after a step, results file written with status incomplete.\n");
}

/* The run's one operand: the deck. */
static int hc_run_deck_operand(void *ctx, const char *arg) {
  const char **path = ctx;
  HC_CHECK(!*path, HC_ERR_INPUT, "unexpected argument '%s': give one deck (see hexcontract --help)", arg);
  *path = arg;
  return HC_OK;
}

/* Reads the command line: the deck, the --set overrides in order and --dump; on --help prints the help and
   sets *help. */
static int hc_run_parse(int argc, char **argv, const char **path, hc_option_list *sets, int *dump, int *help) {
  const hc_option table[] = {
      {.name = "set",
       .value = "key=value",
       .kind = HC_OPTION_LIST,
       .dest = sets,
       .missing = "option --set needs key=value (see hexcontract --help)",
       .help = "override one deck key (repeatable), e.g. --set mesh.cells=32,32,32\n"
               "--set run.backend=cuda --set kernels.variants.FieldFieldTensor=tile"},
      {.name = "dump",
       .value = "N",
       .kind = HC_OPTION_INT,
       .dest = dump,
       .min = 1,
       .max = 1000000,
       .expected = "a number of cells from 1 to 1000000",
       .missing = "option --dump: expected a number of cells from 1 to 1000000, got ''",
       .help = "at the last step, write the left, right and output arrays of every enabled\n"
               "contraction for the first N cells of rank 0 as output.dir/dump_KERNEL_{left,\n"
               "right,out}.npy (cell-major, the run's precision); the dump's time is not timed\n"
               "apart: use it on a check run, not a timed one"},
      {.name = "help", .short_name = 'h', .kind = HC_OPTION_HELP, .dest = help, .help = "print this help"},
      {0}};
  const hc_options spec = {.options = table,
                           .rules = HC_OPTIONS_EQUALS,
                           .see = " (see hexcontract --help)",
                           .operand = hc_run_deck_operand,
                           .ctx = path,
                           .help_column = 21};
  HC_CALL(hc_options_parse(&spec, argc, argv));
  if (*help) hc_run_usage(stdout, &spec);
  return HC_OK;
}

/* The run configuration of a deck. */
static void hc_config_from_deck(const hc_deck *deck, hc_run_config *cfg) {
  memset(cfg, 0, sizeof(*cfg));
  cfg->mesh_source = deck->mesh.source;
  hc_deck_mesh_file(deck, cfg->mesh_file, sizeof(cfg->mesh_file));
  cfg->partitioner =
      deck->mesh.partitioner == HC_DECK_PARTITIONER_PTSCOTCH ? HC_PARTITIONER_PTSCOTCH : HC_PARTITIONER_METIS;
  hc_mesh_params_init(&cfg->mesh);
  cfg->mesh.sizing = deck->mesh.sizing;
  for (int d = 0; d < 3; d++) cfg->mesh.cells[d] = deck->mesh.cells[d], cfg->mesh.length[d] = deck->mesh.length[d];
  cfg->mesh.order = deck->mesh.order;
  cfg->mesh.jitter = deck->mesh.jitter;
  cfg->mesh.seed = (uint64_t)deck->mesh.seed;
  cfg->quadrature = hc_deck_quadrature(deck);
  cfg->shear_amplitude = deck->mesh.shear_amplitude;
  cfg->shear_omega = deck->mesh.shear_omega;
  cfg->steps = deck->run.steps;
  cfg->warmup = deck->run.warmup;
  cfg->dt = deck->run.dt;
  snprintf(cfg->backend, sizeof(cfg->backend), "%s", deck->run.backend);
  cfg->precision = deck->run.precision;
  cfg->layout = deck->run.layout;
  cfg->fused = deck->run.assembly == HC_DECK_ASSEMBLY_FUSED;
  cfg->lanes = deck->run.lanes;
  cfg->deterministic = deck->run.deterministic;
  cfg->progress_s = deck->run.progress;
  cfg->roofline = deck->run.roofline;
  for (int k = 0; k < HC_NUM_KERNELS; k++) {
    cfg->enabled[k] = deck->kernels.enabled[k];
    cfg->variant[k] = hc_deck_variant(deck, (hc_kernel)k);
    char key[96];
    if (deck->kernels.variants[k] != HC_DECK_VARIANT_INHERIT) {
      snprintf(key, sizeof(key), "kernels.variants.%s", hc_kernel_name((hc_kernel)k));
    } else {
      snprintf(key, sizeof(key), "kernels.variant");
    }
    if (hc_deck_where(deck, key, cfg->variant_where[k], sizeof(cfg->variant_where[k]))) hc_error_clear();
    if (!strcmp(cfg->variant_where[k], "default"))
      snprintf(cfg->variant_where[k], sizeof(cfg->variant_where[k]), "default %s", key);
  }
  cfg->checks = deck->checks.enabled;
  cfg->check_every = deck->checks.every;
  cfg->check_samples = deck->checks.samples;
  cfg->tolerance_factor = deck->checks.tolerance_factor;
  cfg->host_limit_gib = deck->memory.host_limit_gib;
  cfg->device_limit_gib = deck->memory.device_limit_gib;
  snprintf(cfg->out_dir, sizeof(cfg->out_dir), "%s", deck->output.dir);
  cfg->vtk = deck->output.vtk;
  cfg->vtk_every = deck->output.vtk_every;
  /* Checked before the run (hc_run_check_vtk), where a bad name is an error of output.results. */
  if (cfg->vtk &&
      hc_vtk_names_init(&cfg->vtk_names, deck->output.dir, deck->output.results, cfg->vtk_every > 0, cfg->steps)) {
    hc_error_clear();
  }
  cfg->gpu_binding = deck->gpu.binding == HC_DECK_BINDING_NODE_LOCAL;
  cfg->num_device_ids = deck->gpu.num_device_ids;
  for (int i = 0; i < deck->gpu.num_device_ids && i < HC_DECK_MAX_DEVICE_IDS; i++)
    cfg->device_ids[i] = deck->gpu.device_ids[i];
}

/* Copies the last error's message and raises it again as an error of deck key (HC_DECK_ERROR). */
static int hc_run_key_error(const hc_deck *deck, const char *key, int err, const char *what) {
  char why[1024];
  snprintf(why, sizeof(why), "%s", hc_error_message());
  return HC_DECK_ERROR(deck, key, err, "%s%s%s", what, what[0] ? ": " : "", why);
}

/* One VTK file, for the checks: its path, its name alone, and its file's device and inode where it exists. */
typedef struct {
  char path[2600];
  char name[1200];
  dev_t dev;
  ino_t ino;
  int exists;
  hc_vtk_file kind;
} hc_run_vtk_out;

static const char *hc_run_vtk_label(hc_vtk_file kind) {
  return kind == HC_VTK_PIECE      ? "the VTK piece"
         : kind == HC_VTK_PARALLEL ? "the VTK parallel file"
                                   : "the VTK collection";
}

static int hc_run_vtk_by_name(const void *a, const void *b) {
  return strcmp(((const hc_run_vtk_out *)a)->name, ((const hc_run_vtk_out *)b)->name);
}

/* The VTK files (output.vtk) checked before any work, as the other outputs (hc_run_check_outputs): every file
   of every set the run will write, on every rank, must be new or a regular file (not a link: they are replaced
   atomically) in a directory that exists, and none may be another output (others[0..n), the deck included),
   whether that exists (device and inode) or not (the same directory and name). At most HC_VTK_MAX_FILES. */
static int hc_run_check_vtk(const hc_deck *deck, const hc_run_config *cfg, int nranks, int n, const char *const *others,
                            const char *const *other_labels) {
  const char *key = cfg->vtk_every > 0 ? "output.vtk_every" : "output.vtk";
  hc_vtk_names names;
  int err = hc_vtk_names_init(&names, deck->output.dir, deck->output.results, cfg->vtk_every > 0, cfg->steps);
  if (err) return hc_run_key_error(deck, "output.results", err, "");
  const int64_t sets = hc_vtk_num_sets(cfg->steps, cfg->vtk_every);
  const int64_t count = sets * (nranks + 1) + (names.series ? 1 : 0);
  if (count > HC_VTK_MAX_FILES) {
    return HC_DECK_ERROR(deck, key, HC_ERR_INPUT,
                         "the run would write %lld VTK files (%lld sets, each a piece per rank on %d ranks and a "
                         "parallel file), more than the %d allowed: write a set every more steps (output.vtk_every), "
                         "or run fewer steps",
                         (long long)count, (long long)sets, nranks, HC_VTK_MAX_FILES);
  }
  hc_run_vtk_out *out = calloc((size_t)count, sizeof(*out));
  HC_CHECK(out, HC_ERR_RESOURCE, "out of host memory checking the VTK files");
  int64_t m = 0;
  for (int step = 1; !err && step <= cfg->steps; step++) {
    if (!hc_vtk_writes_step(step, cfg->steps, cfg->vtk_every)) continue;
    for (int r = -1; !err && r < nranks; r++) {
      out[m].kind = r < 0 ? HC_VTK_PARALLEL : HC_VTK_PIECE;
      err = hc_vtk_path(&names, out[m].kind, step, r, 1, out[m].path, sizeof(out[m].path));
      if (!err) err = hc_vtk_path(&names, out[m].kind, step, r, 0, out[m].name, sizeof(out[m].name));
      m++;
    }
  }
  if (!err && names.series) {
    out[m].kind = HC_VTK_COLLECTION;
    err = hc_vtk_path(&names, HC_VTK_COLLECTION, 0, 0, 1, out[m].path, sizeof(out[m].path));
    if (!err) err = hc_vtk_path(&names, HC_VTK_COLLECTION, 0, 0, 0, out[m].name, sizeof(out[m].name));
    m++;
  }
  if (err) {
    free(out);
    return hc_run_key_error(deck, "output.results", err, "");
  }
  /* Their directory: output.dir (checked), or a directory of the results name inside it. */
  char dir[2600];
  snprintf(dir, sizeof(dir), "%s", out[0].path);
  *strrchr(dir, '/') = '\0';
  err = hc_path_check_dir(dir, 0);
  if (err) {
    free(out);
    return hc_run_key_error(deck, "output.results", err, "the VTK files");
  }
  for (int64_t i = 0; i < m; i++) {
    struct stat st;
    if (lstat(out[i].path, &st) != 0) {
      if (errno == ENOENT) continue;
      err = HC_DECK_ERROR(deck, key, HC_ERR_INPUT, "%s: cannot use '%s': %s", hc_run_vtk_label(out[i].kind),
                          out[i].path, strerror(errno));
    } else if (S_ISLNK(st.st_mode)) {
      err = HC_DECK_ERROR(deck, key, HC_ERR_INPUT,
                          "%s '%s' is a symbolic link; VTK files are replaced atomically, which would replace the "
                          "link: remove it, or name the results (and so the VTK files) otherwise",
                          hc_run_vtk_label(out[i].kind), out[i].path);
    } else if (!S_ISREG(st.st_mode)) {
      err = HC_DECK_ERROR(deck, key, HC_ERR_INPUT,
                          "%s '%s' is %s, not a regular file; remove it or name the results "
                          "(and so the VTK files) otherwise",
                          hc_run_vtk_label(out[i].kind), out[i].path, hc_path_kind(st.st_mode));
    }
    if (err) break;
    out[i].exists = 1, out[i].dev = st.st_dev, out[i].ino = st.st_ino;
  }
  /* Another output that is one of them: the same file where it exists, else the same directory and name. */
  char real_dir[PATH_MAX];
  int have_dir = realpath(dir, real_dir) != NULL;
  qsort(out, (size_t)m, sizeof(*out), hc_run_vtk_by_name);
  for (int j = 0; !err && j < n; j++) {
    struct stat st;
    const hc_run_vtk_out *hit = NULL;
    if (stat(others[j], &st) == 0) {
      for (int64_t i = 0; i < m && !hit; i++)
        if (out[i].exists && out[i].dev == st.st_dev && out[i].ino == st.st_ino) hit = &out[i];
    }
    char copy[PATH_MAX], real_other[PATH_MAX];
    snprintf(copy, sizeof(copy), "%s", others[j]);
    char *slash = strrchr(copy, '/');
    const char *base = slash ? slash + 1 : copy;
    if (slash) *slash = '\0';
    if (!hit && have_dir && realpath(slash ? (copy[0] ? copy : "/") : ".", real_other) &&
        !strcmp(real_other, real_dir)) {
      hc_run_vtk_out probe;
      snprintf(probe.name, sizeof(probe.name), "%.1199s", base); /* a longer name is none of them */
      hit = bsearch(&probe, out, (size_t)m, sizeof(*out), hc_run_vtk_by_name);
    }
    if (hit) {
      err = HC_DECK_ERROR(deck, key, HC_ERR_INPUT,
                          "%s '%s' and %s '%s' are the same file; give each output a file of its own (the VTK files "
                          "are named after output.results)",
                          other_labels[j], others[j], hc_run_vtk_label(hit->kind), hit->path);
    }
  }
  free(out);
  return err;
}

/* Every file the run writes, checked before any work (rank 0): output.dir (created when missing), the
   results file, output.csv and the --dump arrays must be new or regular files in writable directories,
   and no two of them, nor the deck, may be the same file. */
static int hc_run_check_outputs(const hc_deck *deck, const hc_run_config *cfg, int nranks) {
  enum { HC_RUN_MAX_OUTPUTS = 2 + 3 * HC_NUM_KERNELS };
  static char paths[HC_RUN_MAX_OUTPUTS][HC_DECK_PATH_MAX + HC_DECK_NAME_MAX + 64];
  const char *keys[HC_RUN_MAX_OUTPUTS], *labels[HC_RUN_MAX_OUTPUTS + 1];
  int n = 0;
  int err = hc_path_check_dir(deck->output.dir, 1);
  if (err) return hc_run_key_error(deck, "output.dir", err, "");
  /* The --dump files first: a collision is reported at the later file's key, output.results or output.csv. */
  static const char *const arrays[3] = {"left", "right", "out"};
  for (int k = 0; k < HC_NUM_KERNELS && cfg->dump_cells > 0; k++) {
    if (!cfg->enabled[k]) continue;
    for (int a = 0; a < 3; a++) {
      snprintf(paths[n], sizeof(paths[n]), "%s/dump_%s_%s.npy", deck->output.dir, hc_kernel_name((hc_kernel)k),
               arrays[a]);
      keys[n] = "output.dir", labels[n++] = "the --dump file";
    }
  }
  hc_deck_results_path(deck, paths[n], sizeof(paths[n]));
  keys[n] = "output.results", labels[n++] = "the results file";
  if (deck->output.csv[0]) {
    snprintf(paths[n], sizeof(paths[n]), "%s", deck->output.csv);
    keys[n] = "output.csv", labels[n++] = "the CSV file";
  }
  for (int i = 0; i < n; i++) {
    /* Only the CSV file is written through a symbolic link (to the file it points to). */
    err = hc_path_check_output(paths[i], !strcmp(keys[i], "output.csv"));
    if (err) return hc_run_key_error(deck, keys[i], err, labels[i]);
    if (deck->path[0] && hc_path_same_file(paths[i], deck->path, 1)) {
      return HC_DECK_ERROR(deck, keys[i], HC_ERR_INPUT,
                           "%s '%s' is the deck '%s' itself; writing it would replace the deck: name another file",
                           labels[i], paths[i], deck->path);
    }
    for (int j = 0; j < i; j++) {
      if (hc_path_same_file(paths[i], paths[j], 1)) {
        return HC_DECK_ERROR(deck, keys[i], HC_ERR_INPUT,
                             "%s '%s' and %s '%s' are the same file; give each output a file of its own", labels[j],
                             paths[j], labels[i], paths[i]);
      }
    }
  }
  if (cfg->vtk) {
    const char *files[HC_RUN_MAX_OUTPUTS + 1];
    for (int i = 0; i < n; i++) files[i] = paths[i];
    if (deck->path[0]) files[n] = deck->path, labels[n] = "the deck";
    return hc_run_check_vtk(deck, cfg, nranks, n + (deck->path[0] != 0), files, labels);
  }
  return HC_OK;
}

/* The float range (HC_RUN_FLOAT_MIN_VOLUME, hc_run.h); the deck's ranges keep double runs inside theirs. */

static int hc_run_check_scale(const hc_deck *deck, const hc_run_config *cfg, int nranks) {
  if (cfg->precision != HC_FLOAT) return HC_OK;
  if (cfg->mesh_source == HC_MESH_SOURCE_FILE) {
    if (cfg->file_volume == 0) return HC_OK; /* read in parts: checked by the run (hc_run_check_file_scale) */
    const double cell = cfg->file_volume / (double)cfg->file_cells;
    if (cell < HC_RUN_FLOAT_MIN_VOLUME || cfg->file_volume > HC_RUN_FLOAT_MAX_VOLUME)
      return HC_DECK_ERROR(
          deck, "mesh.file", HC_ERR_INPUT,
          "%s: a volume of %.3g in cells of %.3g on average is outside what float precision holds "
          "with its accuracy (cells above %.0e, the mesh below %.0e): scale the mesh or run.precision: "
          "double",
          cfg->mesh_file, cfg->file_volume, cell, HC_RUN_FLOAT_MIN_VOLUME, HC_RUN_FLOAT_MAX_VOLUME);
    return HC_OK;
  }
  int grid[3];
  HC_CALL(hc_partition_grid(nranks, cfg->mesh.sizing, cfg->mesh.cells, grid));
  double h[3], cell = 1.0, box = 1.0;
  for (int d = 0; d < 3; d++) {
    h[d] = cfg->mesh.length[d] / (double)cfg->mesh.cells[d];
    cell *= h[d];
    box *= cfg->mesh.length[d] * (cfg->mesh.sizing == HC_SIZING_PER_RANK ? grid[d] : 1);
  }
  if (cell < HC_RUN_FLOAT_MIN_VOLUME) {
    return HC_DECK_ERROR(deck, "mesh.length", HC_ERR_INPUT,
                         "cells of %.3g x %.3g x %.3g have a volume of %.3g, below the %.0e that float precision "
                         "holds with its accuracy (its numbers end near 1.2e-38): use longer lengths, fewer cells or "
                         "run.precision: double",
                         h[0], h[1], h[2], cell, HC_RUN_FLOAT_MIN_VOLUME);
  }
  if (box > HC_RUN_FLOAT_MAX_VOLUME) {
    return HC_DECK_ERROR(deck, "mesh.length", HC_ERR_INPUT,
                         "the box's volume %.3g is above the %.0e that float precision holds (its numbers end near "
                         "3.4e38): use shorter lengths or run.precision: double",
                         box, HC_RUN_FLOAT_MAX_VOLUME);
  }
  return HC_OK;
}

/* The variants the deck asks for, checked against a host backend (which runs every shape with its one
   algorithm): an unsupported one names where it was set (cfg->variant_where). Device backends check at
   set-up, where their device is known. */
static int hc_run_check_variants(const hc_run_config *cfg, const hc_backend *be) {
  if (be->is_device) return HC_OK;
  for (int kid = 0; kid < HC_NUM_KERNELS; kid++) {
    if (!cfg->enabled[kid]) continue;
    hc_contract k;
    hc_contract_init(&k, (hc_kernel)kid);
    hc_family fam = hc_kernel_family((hc_kernel)kid);
    const int L = (cfg->mesh.order + 1) * (cfg->mesh.order + 1) * (cfg->mesh.order + 1);
    k.C = 1;
    k.L = fam == HC_FAMILY_DATADATA ? 1 : L;
    k.R = fam == HC_FAMILY_FIELDFIELD ? L : 1;
    k.P = k.P_data = cfg->quadrature * cfg->quadrature * cfg->quadrature;
    k.D = hc_kernel_rank((hc_kernel)kid) > 0 ? 3 : 1;
    k.layout = cfg->layout;
    k.precision = cfg->precision;
    k.variant = cfg->variant[kid];
    int err = be->supports(&k);
    if (err == HC_ERR_UNSUPPORTED) {
      char why[1024];
      snprintf(why, sizeof(why), "%s", hc_error_message());
      return HC_ERROR(HC_ERR_INPUT, "%s: %s", cfg->variant_where[kid], why);
    }
    HC_CALL(err);
  }
  return HC_OK;
}

/* The number of ranks on the calling rank's node. Collective: every rank splits. */
static int hc_run_node_ranks(MPI_Comm comm, int *local) {
  MPI_Comm node;
  HC_CALL_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  HC_CALL_MPI(MPI_Comm_size(node, local));
  HC_CALL_MPI(MPI_Comm_free(&node));
  return HC_OK;
}

/* Checks everything that can be checked before any work, the same way on every rank (rank 0 decides
   the machine-dependent part and broadcasts it): backend built, variants supported, memory. Collective.
   *agreed says whether an error returned is rank 0's verdict, the same on every rank, or else a failed
   MPI call of this rank alone. */
/* The mesh keys together: a file names one, and each partitioner fits its source. */
static int hc_run_check_mesh_keys(const hc_deck *deck) {
  const hc_deck_mesh *m = &deck->mesh;
  if (m->source == HC_MESH_SOURCE_FILE && !m->file[0])
    return HC_DECK_ERROR(deck, "mesh.file", HC_ERR_INPUT, "mesh.source is file but mesh.file names no file");
  if (m->source == HC_MESH_SOURCE_FILE && m->partitioner == HC_DECK_PARTITIONER_CARTESIAN)
    return HC_DECK_ERROR(
        deck, "mesh.partitioner", HC_ERR_INPUT,
        "cartesian splits the box into blocks; a mesh file is partitioned by metis (or auto) or ptscotch");
  if (m->source == HC_MESH_SOURCE_BOX &&
      (m->partitioner == HC_DECK_PARTITIONER_METIS || m->partitioner == HC_DECK_PARTITIONER_PTSCOTCH))
    return HC_DECK_ERROR(deck, "mesh.partitioner", HC_ERR_INPUT,
                         "%s partitions mesh files (mesh.source: file); the box is split into blocks (cartesian "
                         "or auto)",
                         m->partitioner == HC_DECK_PARTITIONER_METIS ? "metis" : "ptscotch");
  if (m->source == HC_MESH_SOURCE_FILE && m->sizing == HC_SIZING_PER_RANK)
    return HC_DECK_ERROR(deck, "mesh.sizing", HC_ERR_INPUT,
                         "per-rank sizing grows the box with the ranks; a mesh file is fixed (strong scaling only): "
                         "leave it out or set it to global");
  if (m->source == HC_MESH_SOURCE_FILE && m->jitter > 0 &&
      deck->origin[HC_DECK_MESH_JITTER].source != HC_DECK_FROM_DEFAULT)
    return HC_DECK_ERROR(deck, "mesh.jitter", HC_ERR_INPUT,
                         "jitter moves the box's vertices; a mesh file's vertices are used as they are: leave it out "
                         "or set it to 0");
  return HC_OK;
}

/* Rank 0 reads the mesh file (the run partitions it later); the cells stay in *file. With ptscotch and a file read
   in parts (Exodus II) it reads only the header: every rank reads its own part in the run. */
static int hc_run_read_mesh(const hc_deck *deck, int nranks, hc_run_config *cfg, hc_meshfile **file,
                            hc_mesh_cells *cells) {
  HC_CALL(hc_run_check_mesh_keys(deck));
  if (cfg->mesh_source != HC_MESH_SOURCE_FILE) return HC_OK;
  const int ptscotch = cfg->partitioner == HC_PARTITIONER_PTSCOTCH;
  if (nranks > 1 && ptscotch && !hc_mesh_ptscotch_built())
    return HC_DECK_ERROR(deck, "mesh.partitioner", HC_ERR_NOT_BUILT,
                         "ptscotch: this build has no PT-Scotch (install libptscotch-dev and configure with "
                         "HC_ENABLE_PTSCOTCH=ON)");
  if (ptscotch && hc_meshfile_reads_in_parts(cfg->mesh_file)) {
    const double t0 = hc_wtime();
    int err = hc_meshfile_count(cfg->mesh_file, &cfg->file_geometry_nodes, &cfg->file_cells);
    cfg->file_read_s = hc_wtime() - t0;
    return err ? hc_run_key_error(deck, "mesh.file", err, "") : HC_OK;
  }
  if (nranks > 1 && !ptscotch && !hc_mesh_metis_built())
    return HC_DECK_ERROR(deck, "mesh.partitioner", HC_ERR_NOT_BUILT,
                         "a mesh file on %d ranks is partitioned with METIS, which this build lacks (install "
                         "libmetis-dev and configure with HC_ENABLE_METIS=ON)",
                         nranks);
  const double t0 = hc_wtime();
  int err = hc_meshfile_read(cfg->mesh_file, file);
  cfg->file_read_s = hc_wtime() - t0;
  if (err) return hc_run_key_error(deck, "mesh.file", err, "");
  const hc_meshfile *f = *file;
  *cells = (hc_mesh_cells){.geometry_nodes = f->nodes_per_cell,
                           .num_vertices = f->num_vertices,
                           .num_cells = f->num_cells,
                           .coords = f->coords,
                           .cells = f->cells,
                           .cell_tag = f->cell_tag,
                           .name = f->path};
  cfg->mesh_cells = cells;
  cfg->mesh_whole = f;
  cfg->file_cells = f->num_cells;
  cfg->file_geometry_nodes = f->nodes_per_cell;
  cfg->file_volume = hc_meshfile_volume(f);
  return HC_OK;
}

static int hc_run_precheck(MPI_Comm comm, int rank, int nranks, const hc_deck *deck, hc_run_config *cfg,
                           hc_meshfile **file, hc_mesh_cells *cells, int *agreed) {
  int err = HC_OK;
  char msg[2048] = "";
  *agreed = 0;
  /* Ranks of rank 0's node share its memory. */
  int local = 1;
  HC_CALL(hc_run_node_ranks(comm, &local));
  if (rank == 0) {
    const hc_backend *be = NULL;
    int any = 0;
    for (int k = 0; k < HC_NUM_KERNELS; k++) any |= cfg->enabled[k];
    if (hc_backend_find(cfg->backend, &be) != HC_OK) {
      char why[1024];
      snprintf(why, sizeof(why), "%s", hc_error_message());
      err = HC_DECK_ERROR(deck, "run.backend", HC_ERR_INPUT, "%s", why);
    } else if (!any) {
      err = HC_DECK_ERROR(deck, "kernels.enabled", HC_ERR_INPUT, "enables no kernel; name at least one, or all");
    } else if (cfg->fused && hc_fused_check(be) != HC_OK) {
      err = HC_DECK_ERROR(deck, "run.assembly", HC_ERR_INPUT,
                          "fused mode is not yet on backend %s%s; use run.backend: openmp or cuda, or "
                          "run.assembly: materialized",
                          be->name,
                          hc_backend_is(be, HC_BACKEND_SERIAL) ? " (the materialized reference, which stays so)" : "");
    } else if (cfg->steps < 1) {
      err = HC_DECK_ERROR(deck, "run.steps", HC_ERR_INPUT, "must be at least 1");
    } else if ((err = hc_run_read_mesh(deck, nranks, cfg, file, cells))) {
      /* said below */
    } else {
      hc_memory_estimate est;
      err = hc_run_estimate_memory(cfg, nranks, be, &est);
      const double GiB = 1073741824.0;
      double limit = cfg->host_limit_gib > 0 ? cfg->host_limit_gib * GiB : hc_host_mem_available() / local;
      if (!err && limit > 0 && est.host_bytes > limit) {
        double fit = floor(limit / est.host_per_cell);
        err = HC_DECK_ERROR(deck, "mesh.cells", HC_ERR_RESOURCE,
                            "each rank would need about %.2f GiB of host memory for its %.0f cells but %.2f GiB is "
                            "available per rank (%s); about %.0f cells per rank fit (e.g. %.0f,%.0f,%.0f per rank), "
                            "or use more ranks",
                            est.host_bytes / GiB, est.cells, limit / GiB,
                            cfg->host_limit_gib > 0 ? "memory.host_limit_gib" : "MemAvailable / ranks on this node",
                            fit, floor(cbrt(fit)), floor(cbrt(fit)), floor(cbrt(fit)));
      }
      /* Device memory: the deck's limit, or what rank 0's device has free, shared by the ranks on it. */
      double dlimit = cfg->device_limit_gib * GiB;
      const char *dsource = "memory.device_limit_gib";
      if (!err && be->is_device && dlimit <= 0) {
        size_t free_b = 0, total_b = 0;
        int count = 0;
        if (be->device_count(&count) == HC_OK && count > 0 && be->device_memory(&free_b, &total_b) == HC_OK) {
          int per = cfg->gpu_binding ? (local + count - 1) / count : local;
          dlimit = (double)free_b / (per > 0 ? per : 1);
          dsource = "free memory of the device / ranks sharing it";
        }
        hc_error_clear();
      }
      if (!err && be->is_device && dlimit > 0 && est.device_bytes > dlimit) {
        double fit = floor(dlimit / est.device_per_cell);
        err = HC_DECK_ERROR(deck, "mesh.cells", HC_ERR_RESOURCE,
                            "each rank would need about %.2f GiB of device memory for its %.0f cells but %.2f GiB is "
                            "available per rank (%s); about %.0f cells per rank fit (e.g. %.0f,%.0f,%.0f per rank), "
                            "or use more devices",
                            est.device_bytes / GiB, est.cells, dlimit / GiB, dsource, fit, floor(cbrt(fit)),
                            floor(cbrt(fit)), floor(cbrt(fit)));
      }
    }
    if (!err) err = hc_run_check_scale(deck, cfg, nranks);
    if (!err) err = hc_run_check_variants(cfg, be);
    if (!err) err = hc_run_check_outputs(deck, cfg, nranks);
    if (err) snprintf(msg, sizeof(msg), "%s", hc_error_message());
  }
  HC_CALL_MPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  if (err) HC_CALL_MPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
  *agreed = 1;
  return err ? HC_ERROR(err, "%s", msg) : HC_OK;
}

/* Prints a message and ends every rank with the documented exit code (errors found on one rank). On one
   rank there is no other rank to stop: MPI_Finalize and exit, so that Open MPI adds no MPI_Abort notes.
   Its MPI calls go unchecked: this is the way out after an error, and a failure there leaves nothing more
   to do (a rank that cannot be read prints as -1; a size that cannot be read takes MPI_Abort). */
static void hc_run_abort(MPI_Comm comm, int code) {
  int rank = -1, nranks = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  hc_app_stderr("hexcontract: error on rank %d: %s\n", rank, hc_error_message());
  if (getenv("HC_DEBUG")) hc_app_stderr("hexcontract: raised at %s\n", hc_error_location());
  hc_signal_release();
  if (nranks == 1) {
    MPI_Finalize();
    exit(hc_error_exit_code(code));
  }
  MPI_Abort(comm, hc_error_exit_code(code));
}

/* Starts MPI. After a failure there is no MPI to finalise or abort. */
static int hc_run_mpi_init(int *argc, char ***argv) {
  int provided;
  HC_CALL_MPI(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
  return HC_OK;
}

/* Makes comm return its errors (for HC_CALL_MPI to check) and finds this rank and the number of ranks. */
static int hc_run_mpi_comm(MPI_Comm comm, int *rank, int *nranks) {
  HC_CALL_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  HC_CALL_MPI(MPI_Comm_rank(comm, rank));
  HC_CALL_MPI(MPI_Comm_size(comm, nranks));
  return HC_OK;
}

/* The most ranks that share one device, over every node. Collective. */
static int hc_run_max_sharing(MPI_Comm comm, const hc_run *run, int *shared_max) {
  HC_CALL_MPI(MPI_Allreduce(&run->ranks_per_device, shared_max, 1, MPI_INT, MPI_MAX, comm));
  return HC_OK;
}

/* Ends MPI. Collective. */
static int hc_run_mpi_finalize(void) {
  HC_CALL_MPI(MPI_Finalize());
  return HC_OK;
}

int hc_main_run(int argc, char **argv) {
  const char *path = NULL;
  hc_option_list sets = {calloc((size_t)argc + 1, sizeof(*sets.items)), 0};
  int err = HC_OK, rank = 0, nranks = 1, dump = 0, help = 0;
  if (!sets.items) err = HC_ERROR(HC_ERR_RESOURCE, "out of host memory reading the arguments");
  if (!err) err = hc_run_parse(argc, argv, &path, &sets, &dump, &help);
  if (err || help) {
    free(sets.items);
    hc_app_report_error(err);
    return hc_error_exit_code(err);
  }

  MPI_Comm comm = MPI_COMM_WORLD;
  err = hc_run_mpi_init(&argc, &argv);
  if (err) {
    free(sets.items);
    hc_app_report_error(err);
    return hc_error_exit_code(err);
  }
  err = hc_run_mpi_comm(comm, &rank, &nranks);
  if (err) {
    free(sets.items);
    hc_run_abort(comm, err);
  }
  hc_deck deck;
  hc_run_config cfg;
  hc_run run;
  hc_meshfile *meshfile = NULL; /* rank 0, a file mesh: its cells until the run has dealt them out */
  hc_mesh_cells mesh_cells;
  memset(&run, 0, sizeof(run));
  int agreed = 1;
  err = hc_deck_load(comm, path, sets.n, sets.items, &deck);
  free(sets.items);
  if (!err) {
    hc_config_from_deck(&deck, &cfg);
    cfg.dump_cells = dump;
    /* The same environment and deck, so the same outcome, on every rank. */
    err = hc_inject_init(nranks, cfg.warmup + cfg.steps, cfg.checks);
    if (!err) err = hc_run_precheck(comm, rank, nranks, &deck, &cfg, &meshfile, &mesh_cells, &agreed);
  }
  if (err && !agreed) hc_run_abort(comm, err);
  if (err) {
    /* The same error on every rank: rank 0 says it once, everyone exits. MPI_Finalize goes unchecked: the
       exit code already says that the run failed, and a failure on the way out could not change it. */
    if (rank == 0) hc_app_report_error(err);
    hc_meshfile_destroy(&meshfile);
    MPI_Finalize();
    return hc_error_exit_code(err);
  }
  if (rank == 0 && deck.output.summary) hc_run_print_header(&deck, &cfg, nranks);
  err = hc_signal_catch();
  if (!err) err = hc_run_execute(comm, &cfg, &run);
  hc_signal_release();
  cfg.mesh_cells = NULL;
  cfg.mesh_whole = NULL;
  hc_meshfile_destroy(&meshfile);
  if (err) hc_run_abort(comm, err);
  int shared_max = 1;
  err = hc_run_max_sharing(comm, &run, &shared_max);
  if (err) hc_run_abort(comm, err);
  if (rank == 0 && shared_max > 1)
    hc_app_stderr("hexcontract: warning: up to %d ranks share one device on a node; timings include the sharing\n",
                  shared_max);
  hc_results *res = NULL;
  err = hc_results_create(&res);
  if (!err) err = hc_run_results_gather(&run, res);
  if (err) hc_run_abort(comm, err);
  int failed = 0, signo = run.stopped_by_signal;
  for (int i = 0; i < run.nchecks; i++) failed |= run.checks[i].failures > 0;
  if (rank == 0) {
    if (deck.output.summary) hc_run_print_summary(&deck, &run, res);
    if (deck.output.summary && cfg.vtk) {
      char last[2600] = "";
      hc_vtk_file kind = cfg.vtk_names.series ? HC_VTK_COLLECTION : HC_VTK_PARALLEL;
      if (hc_vtk_path(&cfg.vtk_names, kind, cfg.steps, 0, 1, last, sizeof(last))) hc_error_clear();
      printf("vtk: %d set%s of %d piece%s written in %.3f s (left out of the timers): open %s in ParaView\n",
             run.vtk_sets, run.vtk_sets == 1 ? "" : "s", run.nranks, run.nranks == 1 ? "" : "s", run.vtk_s, last);
    }
    err = hc_run_results_write(&deck, &run, res);
    if (err) hc_run_abort(comm, err);
    char rpath[HC_DECK_PATH_MAX + HC_DECK_NAME_MAX + 2], where[HC_DECK_PATH_MAX + HC_DECK_NAME_MAX + 64];
    hc_deck_results_path(&deck, rpath, sizeof(rpath));
    snprintf(where, sizeof(where), "the results file %s has them all", rpath);
    hc_app_stdout_check(where);
    /* Said now: mpirun may end the ranks soon after forwarding the signal to them. */
    if (signo) {
      hc_app_stderr("hexcontract: error: stopped by %s after %d of %d timed steps; results marked incomplete\n",
                    hc_signal_name(signo), run.steps_done, cfg.steps);
    }
  }
  hc_results_destroy(&res);
  hc_run_destroy(&run);
  /* A run whose results are out but whose MPI_Finalize fails says so on its rank and exits 1. */
  err = hc_run_mpi_finalize();
  hc_app_report_error(err);
  /* The shell's convention for a process ended by a signal. */
  if (signo) return 128 + signo;
  if (failed && rank == 0) hc_app_stderr("hexcontract: error: a self-check failed (see the checks above)\n");
  return failed ? 1 : hc_error_exit_code(err);
}
