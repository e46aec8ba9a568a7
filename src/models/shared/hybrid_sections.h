/* hybrid_sections.h: section recorders of the hybrid integrator (hybrid.h includes it; a
 * model includes hybrid.h). A recorder keeps, per point, the last N samples of a section
 * of the motion, each the time and the state's first components:
 *
 *   - IS_HYBRID_SECTION_STROBE: the stroboscopic section, the state at t0 + k T
 *     (k = 1, 2, ...; T the point's section_period, the system's `sections` set: the
 *     integrator's steps end there exactly, as for is_hybrid_end.section);
 *   - IS_HYBRID_SECTION_EVENTS: the impact (event) section, the state at each arrival of
 *     the events in its mask (a bit each: one event, or all of a kind), taken at the event
 *     before on_event (after = 0: the arrival, e.g. the velocity into an impact) or after
 *     it (after = 1: the reset's state; before any accumulation at that arrival). Events
 *     that fire together give one sample. An observe event's state is the same either way.
 *
 * N is the recorder's `capacity` (the model's default: at most IS_HYBRID_SECTION_MAX)
 * or, smaller, a point's is_hybrid_start.section_samples[k]. The samples live in a ring
 * of N rows per lane slot, allocated once per is_hybrid_run call (capacity rows of
 * 1 + components doubles for each of IS_HYBRID_LANES slots: 16 slots, 64 rows of 4 are
 * 32 kB), so a point's memory is fixed whatever its horizon and nothing is allocated in
 * the steps. A system without recorders (recorders = 0) costs nothing: every hook folds.
 *
 * The model's finish sees recorder k as is_hybrid_end.recorded[k] (an is_hybrid_section,
 * whose rows belong to the integrator until finish returns) and reads it with the
 * functions below: a sample, the period of the last samples (up to N/2), the number of
 * distinct values, their spread, and a copy of the last n values into the caller's
 * buffer (an output). Tolerances are relative to the section's scale: component i of two
 * samples is the same when they differ by at most atol[i] + rtol max |y_i| (the maximum
 * over the samples kept), so one rtol serves a section whatever its units; a component
 * that is 0 on the section (to rounding: the event's function at an event section) has a
 * scale of rounding too, and needs its atol. */
#ifndef IMPACTSWEEP_HYBRID_SECTIONS_H
#define IMPACTSWEEP_HYBRID_SECTIONS_H

#ifndef IMPACTSWEEP_HYBRID_H
#error "include <impactsweep/hybrid.h>, which includes hybrid_sections.h"
#endif

#define IS_HYBRID_MAX_RECORDERS 2    /* is_hybrid_system.recorder */
#define IS_HYBRID_SECTION_MAX 4096   /* the largest N (a recorder's capacity) */
#define IS_HYBRID_SECTION_DEFAULT 64 /* N when the recorder's capacity is 0 */
#define IS_HYBRID_SECTION_TIME (-1)  /* the time, as a component (the copy and the value) */

/* Recorder kinds (is_hybrid_recorder.kind). */
enum { IS_HYBRID_SECTION_NONE = 0, IS_HYBRID_SECTION_STROBE = 1, IS_HYBRID_SECTION_EVENTS = 2 };

/* What a recorder keeps (is_hybrid_system.recorder[k], k < recorders). */
typedef struct is_hybrid_recorder {
    int kind;          /* IS_HYBRID_SECTION_STROBE or _EVENTS */
    unsigned events;   /* _EVENTS: the events whose arrivals are sampled, a bit each */
    int after;         /* _EVENTS: 1 the state after on_event (the reset), 0 before it */
    int components;    /* the state's first components kept (0: all, the dimension) */
    int capacity;      /* N, the samples kept (0: IS_HYBRID_SECTION_DEFAULT; at most
                          IS_HYBRID_SECTION_MAX); a point may keep fewer */
} is_hybrid_recorder;

/* A point's section, for finish (is_hybrid_end.recorded[k]): sample j (from 0, over the
 * run) is row j % n of data, (t, y_0, ..., y_(components - 1)), for the last n samples
 * (j >= count - n). The rows are the integrator's: read them before finish returns. */
typedef struct is_hybrid_section {
    int64_t count;      /* samples taken over the run */
    int n;              /* the last n kept: the point's N (0: no recorder) */
    int components;     /* state components in a sample */
    const double *data; /* n rows of 1 + components doubles */
} is_hybrid_section;

/* The samples kept: min(count, n). */
static inline int is_hybrid_section_kept(const is_hybrid_section *s)
{
    return s->count < (int64_t)s->n ? (int)s->count : s->n;
}

/* Sample `back` from the last (0: the last) as its row (t, y...), NULL if not kept. */
static inline const double *is_hybrid_section_sample(const is_hybrid_section *s, int back)
{
    if (back < 0 || back >= is_hybrid_section_kept(s))
        return NULL;
    return s->data + (size_t)((s->count - 1 - back) % s->n) * (size_t)(1 + s->components);
}

/* Component i (IS_HYBRID_SECTION_TIME: the time) of sample `back` from the last; NaN if
 * that sample is not kept or i is not recorded. */
static inline double is_hybrid_section_value(const is_hybrid_section *s, int back, int i)
{
    const double *row = is_hybrid_section_sample(s, back);
    return row && i >= -1 && i < s->components ? row[1 + i] : __builtin_nan("");
}

/* The section's scale in component i: the largest |y_i| of the samples kept (0: none). */
static inline double is_hybrid_section_scale(const is_hybrid_section *s, int i)
{
    double scale = 0.0;
    for (int k = 0; k < is_hybrid_section_kept(s); k++)
        scale = fmax(scale, fabs(is_hybrid_section_value(s, k, i)));
    return scale;
}

/* The tolerances of the first m components: atol[i] (NULL: 0) + rtol times the scale. */
static inline void ishs_tolerances(const is_hybrid_section *s, int m, double rtol,
                                   const double *atol, double *tol)
{
    for (int i = 0; i < m; i++)
        tol[i] = (atol ? atol[i] : 0.0) + rtol * is_hybrid_section_scale(s, i);
}

/* The period of the final motion on the section: the smallest p <= max_period (and
 * <= n / 2, with 2p samples kept) such that each of the last p samples equals the one p
 * before it in the first m components (m <= components; the time is not compared), to
 * the tolerances above; 0 if there is none. (A period-p orbit of a stroboscopic section
 * of period T: the motion's period p T; of an impact section: p impacts.) */
static inline int is_hybrid_section_period(const is_hybrid_section *s, int m, int max_period,
                                           double rtol, const double *atol)
{
    double tol[IS_HYBRID_MAX_DIM];
    int kept = is_hybrid_section_kept(s);
    m = m < s->components ? m : s->components;
    ishs_tolerances(s, m, rtol, atol, tol);
    for (int p = 1; p <= max_period && 2 * p <= kept; p++) {
        int same = 1;
        for (int k = 0; k < p && same; k++) {
            const double *now = is_hybrid_section_sample(s, k) + 1;
            const double *before = is_hybrid_section_sample(s, k + p) + 1;
            for (int i = 0; i < m && same; i++)
                same = fabs(now[i] - before[i]) <= tol[i];
        }
        if (same)
            return p;
    }
    return 0;
}

/* How many distinct values the last `last` samples kept take in the first m components
 * (to the tolerances above): a sample is new when it differs from the first sample of
 * every value found before it (a period-p orbit: p; a chaotic one: about `last`). Its
 * cost is last times the values found. 0 without samples. */
static inline int is_hybrid_section_distinct(const is_hybrid_section *s, int m, int last,
                                             double rtol, const double *atol)
{
    double tol[IS_HYBRID_MAX_DIM];
    int kept = is_hybrid_section_kept(s), found = 0;
    int first[IS_HYBRID_SECTION_MAX]; /* (16 kB of stack at most) */
    m = m < s->components ? m : s->components;
    last = last < kept ? last : kept;
    ishs_tolerances(s, m, rtol, atol, tol);
    for (int k = 0; k < last; k++) {
        const double *y = is_hybrid_section_sample(s, k) + 1;
        int known = 0;
        for (int j = 0; j < found && !known; j++) {
            const double *z = is_hybrid_section_sample(s, first[j]) + 1;
            known = 1;
            for (int i = 0; i < m && known; i++)
                known = fabs(y[i] - z[i]) <= tol[i];
        }
        if (!known)
            first[found++] = k;
    }
    return found;
}

/* The range (largest minus smallest) of component i over the last `last` samples kept;
 * NaN without samples. */
static inline double is_hybrid_section_spread(const is_hybrid_section *s, int i, int last)
{
    int kept = is_hybrid_section_kept(s);
    double lo = __builtin_inf(), hi = -__builtin_inf();
    last = last < kept ? last : kept;
    for (int k = 0; k < last; k++) {
        double v = is_hybrid_section_value(s, k, i);
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    return last > 0 ? hi - lo : __builtin_nan("");
}

/* Copies component i (IS_HYBRID_SECTION_TIME: the time) of the last n samples into the
 * caller's buffer, oldest first, dst[j * stride] = sample count - n + j: the last sample
 * always at dst[(n - 1) * stride], NaN before the first kept (fewer taken than n, or n
 * above the point's N). A model's finish fills its output of n values per point with it
 * (stride: the distance between two values of one point). Returns the samples copied. */
static inline int is_hybrid_section_copy(const is_hybrid_section *s, int i, int n, double *dst,
                                         size_t stride)
{
    int kept = is_hybrid_section_kept(s), copied = 0;
    for (int j = 0; j < n; j++) {
        int back = n - 1 - j;
        dst[(size_t)j * stride] = back < kept ? is_hybrid_section_value(s, back, i)
                                              : __builtin_nan("");
        copied += back < kept;
    }
    return copied;
}

/* --- the integrator's side (private: ishs_) ----------------------------------------- */

#define ISHS_INLINE static inline __attribute__((always_inline))

/* The rings of a run: for recorder k, capacity[k] rows of width[k] doubles per lane
 * slot, in one allocation after the struct; and each slot's count and N. */
typedef struct ishs_store {
    double *data[IS_HYBRID_MAX_RECORDERS];
    int width[IS_HYBRID_MAX_RECORDERS], capacity[IS_HYBRID_MAX_RECORDERS];
    int64_t count[IS_HYBRID_MAX_RECORDERS][IS_HYBRID_LANES];
    int n[IS_HYBRID_MAX_RECORDERS][IS_HYBRID_LANES];
} ishs_store;

/* The rings for a system's recorders (NULL without recorders). Returns -1 without
 * memory, 0 otherwise. */
ISHS_INLINE int ishs_open(const is_hybrid_recorder *rec, int recorders, int dimension,
                          ishs_store **out)
{
    *out = NULL;
    if (recorders <= 0)
        return 0;
    int width[IS_HYBRID_MAX_RECORDERS], capacity[IS_HYBRID_MAX_RECORDERS];
    size_t doubles = 0;
    for (int k = 0; k < recorders && k < IS_HYBRID_MAX_RECORDERS; k++) {
        int c = rec[k].components > 0 && rec[k].components < dimension ? rec[k].components
                                                                        : dimension;
        int n = rec[k].capacity > 0 ? rec[k].capacity : IS_HYBRID_SECTION_DEFAULT;
        width[k] = 1 + c;
        capacity[k] = n < IS_HYBRID_SECTION_MAX ? n : IS_HYBRID_SECTION_MAX;
        doubles += (size_t)IS_HYBRID_LANES * (size_t)capacity[k] * (size_t)width[k];
    }
    ishs_store *s = malloc(sizeof *s + doubles * sizeof(double));
    if (!s)
        return -1;
    memset(s, 0, sizeof *s); /* (the rows are written before they are read) */
    double *at = (double *)(s + 1);
    for (int k = 0; k < recorders && k < IS_HYBRID_MAX_RECORDERS; k++) {
        s->data[k] = at;
        s->width[k] = width[k];
        s->capacity[k] = capacity[k];
        at += (size_t)IS_HYBRID_LANES * (size_t)capacity[k] * (size_t)width[k];
    }
    *out = s;
    return 0;
}

/* Lane slot `slot` takes a point: no samples, its N (samples[k], 0: the capacity). */
ISHS_INLINE void ishs_load(int recorders, ishs_store *s, int slot, const int *samples)
{
    for (int k = 0; k < recorders && k < IS_HYBRID_MAX_RECORDERS; k++) {
        int n = samples[k] > 0 && samples[k] < s->capacity[k] ? samples[k] : s->capacity[k];
        s->count[k][slot] = 0;
        s->n[k][slot] = n;
    }
}

/* A sample of recorder k for lane l of a vector at lane slot `slot`: (t, y). */
ISHS_INLINE void ishs_take(ishs_store *s, int k, int slot, int l, double t, const lv_double *y)
{
    int lane = slot + l, w = s->width[k];
    int64_t j = s->count[k][lane] % s->n[k][lane];
    double *row = s->data[k] + ((size_t)lane * (size_t)s->capacity[k] + (size_t)j) * (size_t)w;
    row[0] = t;
    for (int i = 1; i < w; i++)
        row[i] = y[i - 1][l];
    s->count[k][lane]++;
}

/* The stroboscopic recorders' sample of lane l (at the section's time t). */
ISHS_INLINE void ishs_strobe(const is_hybrid_recorder *rec, int recorders, ishs_store *s,
                             int slot, int l, double t, const lv_double *y)
{
    for (int k = 0; k < recorders && k < IS_HYBRID_MAX_RECORDERS; k++)
        if (rec[k].kind == IS_HYBRID_SECTION_STROBE)
            ishs_take(s, k, slot, l, t, y);
}

/* The event recorders' samples of the lanes A where their events fired (fired[e]), at
 * (t, y): before on_event (after = 0) or after it (after = 1). */
ISHS_INLINE void ishs_events(const is_hybrid_recorder *rec, int recorders, int events,
                             ishs_store *s, int slot, const lv_mask *fired, lv_mask A,
                             lv_double t, const lv_double *y, int after)
{
    for (int k = 0; k < recorders && k < IS_HYBRID_MAX_RECORDERS; k++) {
        if (rec[k].kind != IS_HYBRID_SECTION_EVENTS || (rec[k].after != 0) != (after != 0))
            continue;
        lv_mask m = lv_mask_none();
        for (int e = 0; e < events; e++)
            if (rec[k].events >> e & 1u)
                m |= fired[e];
        m &= A;
        if (!lv_any(m))
            continue;
        for (int l = 0; l < LV_WIDTH; l++)
            if (lv_mask_lane(m, l))
                ishs_take(s, k, slot, l, t[l], y);
    }
}

/* A lane's sections for its end (every recorder; none: empty). */
ISHS_INLINE void ishs_end(int recorders, const ishs_store *s, int lane, is_hybrid_section *out)
{
    for (int k = 0; k < IS_HYBRID_MAX_RECORDERS; k++) {
        is_hybrid_section none = {0, 0, 0, NULL};
        out[k] = none;
        if (k < recorders && s) {
            out[k].count = s->count[k][lane];
            out[k].n = s->n[k][lane];
            out[k].components = s->width[k] - 1;
            out[k].data = s->data[k] + (size_t)lane * (size_t)s->capacity[k] * (size_t)s->width[k];
        }
    }
}

#endif
