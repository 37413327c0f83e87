/* hexcontract bench against its targets (README.md, section hexcontract bench): per kernel family, how many cases meet
 * each; the ratios to the fastest vendor variant that the vendor target uses. */
#include <stdio.h>

#include "app/hc_bench.h"
#include "io/hc_yaml_writer.h"

static const char *const hc_family_names[3] = {"DataData", "DataField", "FieldField"};
static const char *const hc_target_names[HC_BENCH_NUM_TARGETS] = {"roofline", "vendor", "layout", "precision"};

static int hc_is_vendor(hc_variant v) {
  return (hc_variant_flags(v) & HC_VARIANT_VENDOR) != 0;
}

/* The fastest of our own variants that ran on bc: not a vendor's, and not auto unless it alone ran (on a
   CPU backend, where auto is the backend's one kernel); NULL if none. */
static const hc_bench_row *hc_own_best(const hc_bench_case *bc) {
  const hc_bench_row *best = NULL, *autorow = NULL;
  if (bc->overhead) return NULL;
  for (int j = 0; j < bc->nrows; j++) {
    const hc_bench_row *r = &bc->rows[j];
    if (r->status != HC_BENCH_RAN || !(r->median_s > 0) || hc_is_vendor(r->variant)) continue;
    if (r->variant == HC_VARIANT_AUTO) {
      if (!hc_is_vendor(r->chosen)) autorow = r;
    } else if (!best || r->median_s < best->median_s) {
      best = r;
    }
  }
  return best ? best : autorow;
}

/* The fastest vendor row that ran on bc; NULL if none. */
static const hc_bench_row *hc_vendor_fastest(const hc_bench_case *bc) {
  const hc_bench_row *fastest = NULL;
  for (int j = 0; j < bc->nrows; j++) {
    const hc_bench_row *r = &bc->rows[j];
    if (r->status == HC_BENCH_RAN && r->median_s > 0 && hc_is_vendor(r->variant) &&
        (!fastest || r->median_s < fastest->median_s))
      fastest = r;
  }
  return fastest;
}

void hc_bench_vendor_ratios(const hc_bench *bench, hc_bench_case *bc) {
  const hc_contract *k = &bc->k;
  const hc_bench_row *vendor = hc_vendor_fastest(bc);
  bc->vendor_layout = k->layout;
  for (int i = 0; i < bench->ncases && !vendor && k->layout == HC_LAYOUT_CELL_MINOR; i++) {
    const hc_bench_case *o = &bench->cases[i];
    if (o->overhead == bc->overhead && o->k.kernel == k->kernel && o->k.L == k->L && o->k.P == k->P && o->k.C == k->C &&
        o->k.precision == k->precision && o->k.layout == HC_LAYOUT_CELL_MAJOR) {
      vendor = hc_vendor_fastest(o);
      bc->vendor_layout = HC_LAYOUT_CELL_MAJOR;
    }
  }
  bc->have_vendor = vendor != NULL;
  bc->vendor_variant = vendor ? vendor->variant : HC_NUM_VARIANTS;
  for (int j = 0; j < bc->nrows; j++) {
    hc_bench_row *r = &bc->rows[j];
    r->vs_vendor = vendor && r->status == HC_BENCH_RAN && r->median_s > 0 ? vendor->median_s / r->median_s : 0;
  }
}

/* The case of bench like bc but for its layout or precision, with one of our own variants; NULL if none. */
static const hc_bench_case *hc_twin(const hc_bench *bench, const hc_bench_case *bc, hc_layout layout,
                                    hc_precision precision) {
  for (int i = 0; i < bench->ncases; i++) {
    const hc_bench_case *o = &bench->cases[i];
    if (!o->overhead && o->k.kernel == bc->k.kernel && o->k.L == bc->k.L && o->k.P == bc->k.P &&
        o->k.layout == layout && o->k.precision == precision && hc_own_best(o))
      return o;
  }
  return NULL;
}

/* Memory-bound against the roofline of its best own row: intensity below the ridge point. */
static int hc_bandwidth_bound(const hc_bench *bench, const hc_bench_case *bc, const hc_bench_row *r) {
  return bc->flops / bc->bytes < r->peak / (bench->copy_gbs * 1e9);
}

void hc_bench_targets_count(const hc_bench *bench, hc_bench_targets *t) {
  *t = (hc_bench_targets){0};
  for (int i = 0; i < bench->ncases; i++) {
    const hc_bench_case *bc = &bench->cases[i];
    const hc_bench_row *r = hc_own_best(bc);
    if (!r) continue;
    const hc_contract *k = &bc->k;
    const int fam = (int)hc_kernel_family(k->kernel), dbl = k->precision == HC_DOUBLE;
    const double per_cell = r->median_s / (double)k->C;
    hc_bench_count *c = t->count[fam];
    t->cases[fam]++;
    /* Roofline: FieldField (125,216) in double against the FP64 tensor-core roofline. */
    double pct = r->roofline_pct, need = HC_BENCH_TARGET_ROOF_PCT;
    const double tc_peak = bench->peak[HC_DOUBLE][1];
    if (fam == HC_FAMILY_FIELDFIELD && dbl && k->L == 125 && k->P == 216 && tc_peak > 0) {
      double mem = bc->bytes / (bench->copy_gbs * 1e9), flop = bc->flops / tc_peak;
      pct = 100 * (mem > flop ? mem : flop) / r->median_s;
      need = HC_BENCH_TARGET_ROOF_PCT_TC;
    }
    c[HC_BENCH_TARGET_ROOFLINE].of++;
    c[HC_BENCH_TARGET_ROOFLINE].met += pct >= need;
    /* Vendor: vs_vendor is the faster vendor variant's time over ours on the same arrays (cell-major ones for
       cell-minor). */
    if (r->vs_vendor > 0) {
      const int fem = fam == HC_FAMILY_FIELDFIELD && dbl && k->L == k->P && (k->L == 27 || k->L == 64);
      c[HC_BENCH_TARGET_VENDOR].of++;
      c[HC_BENCH_TARGET_VENDOR].met +=
          r->vs_vendor >= (fem ? HC_BENCH_TARGET_VS_VENDOR_FEM : HC_BENCH_TARGET_VS_VENDOR);
    }
    /* Layout, counted on the cell-minor case: time per cell against cell-major's. */
    const hc_bench_case *maj =
        k->layout == HC_LAYOUT_CELL_MINOR ? hc_twin(bench, bc, HC_LAYOUT_CELL_MAJOR, k->precision) : NULL;
    if (maj) {
      const hc_bench_row *rm = hc_own_best(maj);
      c[HC_BENCH_TARGET_LAYOUT].of++;
      c[HC_BENCH_TARGET_LAYOUT].met += per_cell <= HC_BENCH_TARGET_LAYOUT_RATIO * rm->median_s / (double)maj->k.C;
    }
    /* Precision, counted on the float case where it and the double case are both bandwidth-bound: time per
       cell (a float case has more cells in the same memory). */
    const hc_bench_case *d = k->precision == HC_FLOAT ? hc_twin(bench, bc, k->layout, HC_DOUBLE) : NULL;
    if (d && hc_bandwidth_bound(bench, bc, r) && hc_bandwidth_bound(bench, d, hc_own_best(d))) {
      const hc_bench_row *rd = hc_own_best(d);
      c[HC_BENCH_TARGET_PRECISION].of++;
      c[HC_BENCH_TARGET_PRECISION].met += per_cell <= HC_BENCH_TARGET_FLOAT_RATIO * rd->median_s / (double)d->k.C;
    }
  }
}

void hc_bench_targets_print(const hc_bench *bench) {
  hc_bench_targets t;
  hc_bench_targets_count(bench, &t);
  printf(
      "\nTargets (README.md, section hexcontract bench), cases meeting each of those it applies to; ours = the fastest "
      "of our own variants "
      "(not a\nvendor's; auto only where it alone ran). roofline: >= %.0f%% (FieldField (125,216) double: %.0f%% "
      "of the tensor-core\nroofline); vendor: >= %.1fx the fastest vendor variant (FieldField double (27,27), (64,64): "
      "%.1fx); "
      "layout: cell-minor <= %.2fx\ncell-major per cell; precision: float <= %.2fx double per cell where both are "
      "bandwidth-bound:\n",
      HC_BENCH_TARGET_ROOF_PCT, HC_BENCH_TARGET_ROOF_PCT_TC, HC_BENCH_TARGET_VS_VENDOR, HC_BENCH_TARGET_VS_VENDOR_FEM,
      HC_BENCH_TARGET_LAYOUT_RATIO, HC_BENCH_TARGET_FLOAT_RATIO);
  static const char *const none[HC_BENCH_NUM_TARGETS] = {
      "no case ran", "no vendor variant", "no case ran in both layouts", "no bandwidth-bound case in both precisions"};
  for (int f = 0; f < 3; f++) {
    if (!t.cases[f]) continue;
    printf("  targets %-10s %3d cases:", hc_family_names[f], t.cases[f]);
    for (int g = 0; g < HC_BENCH_NUM_TARGETS; g++) {
      const hc_bench_count *c = &t.count[f][g];
      if (c->of) {
        printf("%s %s %d of %d", g ? ";" : "", hc_target_names[g], c->met, c->of);
      } else {
        printf("%s %s: %s", g ? ";" : "", hc_target_names[g], none[g]);
      }
    }
    printf("\n");
  }
}

int hc_bench_targets_yaml(hc_yaml_writer *w, const hc_bench *bench) {
  hc_bench_targets t;
  hc_bench_targets_count(bench, &t);
  HC_CALL(hc_yaml_writer_begin_mapping(w, "targets", HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_string(w, "how",
                                "the bench's targets (README.md, section hexcontract bench); per kernel family, met of "
                                "the cases each applies to (of 0: "
                                "none). Ours: the fastest of our own variants (not a vendor variant; auto only "
                                "where it alone ran); vendor: vs_cublas, the time of the fastest vendor variant "
                                "(vendor_variant) over ours; layout and precision: median time per cell"));
  HC_CALL(hc_yaml_writer_begin_mapping(w, "thresholds", HC_YAML_BLOCK));
  HC_CALL(hc_yaml_writer_double(w, "roofline_pct", HC_BENCH_TARGET_ROOF_PCT));
  HC_CALL(hc_yaml_writer_double(w, "roofline_pct_fieldfield_125_216_double_tensor_cores", HC_BENCH_TARGET_ROOF_PCT_TC));
  HC_CALL(hc_yaml_writer_double(w, "vs_vendor", HC_BENCH_TARGET_VS_VENDOR));
  HC_CALL(hc_yaml_writer_double(w, "vs_vendor_fieldfield_double_27_27_and_64_64", HC_BENCH_TARGET_VS_VENDOR_FEM));
  HC_CALL(hc_yaml_writer_double(w, "cell_minor_over_cell_major", HC_BENCH_TARGET_LAYOUT_RATIO));
  HC_CALL(hc_yaml_writer_double(w, "float_over_double_bandwidth_bound", HC_BENCH_TARGET_FLOAT_RATIO));
  HC_CALL(hc_yaml_writer_end_mapping(w));
  HC_CALL(hc_yaml_writer_begin_mapping(w, "families", HC_YAML_BLOCK));
  for (int f = 0; f < 3; f++) {
    if (!t.cases[f]) continue;
    HC_CALL(hc_yaml_writer_begin_mapping(w, hc_family_names[f], HC_YAML_BLOCK));
    HC_CALL(hc_yaml_writer_int64(w, "cases", t.cases[f]));
    for (int g = 0; g < HC_BENCH_NUM_TARGETS; g++) {
      HC_CALL(hc_yaml_writer_begin_mapping(w, hc_target_names[g], HC_YAML_FLOW));
      HC_CALL(hc_yaml_writer_int64(w, "met", t.count[f][g].met));
      HC_CALL(hc_yaml_writer_int64(w, "of", t.count[f][g].of));
      HC_CALL(hc_yaml_writer_end_mapping(w));
    }
    HC_CALL(hc_yaml_writer_end_mapping(w));
  }
  HC_CALL(hc_yaml_writer_end_mapping(w));
  return hc_yaml_writer_end_mapping(w);
}
