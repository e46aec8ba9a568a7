/* hybrid_trace.h: the trace a model on hybrid.h gets without code of its own (included by
 * hybrid_impl.h; private names begin with ish_). `impactsweep trace` asks a model's
 * is_model_trace.run for one point's trajectory; IS_HYBRID_PLUGIN(table, system) (or
 * is_hybrid_trace_table for a model that ends its table otherwise) gives the table one
 * that runs the model's own eval_batch on the point, so the outputs are eval_batch's bits,
 * while is_hybrid_run writes into the engine's sink:
 *
 *   - samples: the start, every accepted step's end (or, with the trace option `dt` > 0,
 *     the first step's end at least dt after the last sample), the state at every event
 *     (before and after on_event) and the end of the run (the state the outputs describe);
 *   - events, each after the sample at it, with its kind: one kind per event function of
 *     the system (is_hybrid_system.event_name, or the integrator's kind and index:
 *     "reset_0", "kink_1", "observe_2", "land_3", "rough_4"), and "accumulation" where
 *     events accumulated (Zeno, or a reset slow enough to stick: the state after
 *     on_accumulate, at t*; with no on_accumulate the run ends there).
 *
 * Channels are the state's components (is_hybrid_system.state_name and state_unit, or
 * y0, y1, ... in "1"), the time in is_hybrid_system.time_unit ("1" if not given).
 *
 * Why a thread-local: the trace reaches the integrator through the model's eval_batch,
 * whose signature the contract fixes; the pointer is set only for the length of that one
 * call (one point, one thread), and NULL otherwise, where it costs one test per run. */
#ifndef IMPACTSWEEP_HYBRID_TRACE_H
#define IMPACTSWEEP_HYBRID_TRACE_H

/* model.h: two folders up in the source tree, beside this header where installed */
#if __has_include("../../core/contract/model.h")
#define ISH_MODEL_H "../../core/contract/model.h"
#else
#define ISH_MODEL_H "model.h"
#endif
#include ISH_MODEL_H
#include <stdio.h>

#define ISH_TRACE_NAME 32 /* room for a default event kind or channel name */

typedef struct ish_tracer {
    const is_trace_sink *sink;
    int dimension, kinds;  /* state components; event kinds (the system's + accumulation) */
    double dt;             /* step samples at least this far apart (0: every step) */
    double last_t;         /* the last sample's time and state */
    double last_y[IS_HYBRID_MAX_DIM];
    int sampled;           /* a sample has been written */
    is_code code;          /* the sink's first error: the run stops */
} ish_tracer;

static _Thread_local ish_tracer *ish_tracing;

/* One sample of lane state (t, y); `step`: a step's end, which dt may skip. */
static inline void ish_trace_sample(ish_tracer *tr, double t, const double *y, int step)
{
    if (tr->code != IS_OK || (step && tr->sampled && t < tr->last_t + tr->dt))
        return;
    tr->code = tr->sink->sample(tr->sink->context, t, y);
    tr->last_t = t;
    memcpy(tr->last_y, y, (size_t)tr->dimension * sizeof *y);
    tr->sampled = 1;
}

static inline void ish_trace_event(ish_tracer *tr, int kind, double t, const double *y)
{
    if (tr->code == IS_OK)
        tr->code = tr->sink->event(tr->sink->context, t, kind, y);
}

/* The run's end: its state, unless it is the last sample already. */
static inline void ish_trace_end(ish_tracer *tr, double t, const double *y)
{
    int same = tr->sampled && t == tr->last_t;
    for (int i = 0; same && i < tr->dimension; i++)
        same = memcmp(&y[i], &tr->last_y[i], sizeof *y) == 0;
    if (!same)
        ish_trace_sample(tr, t, y, 0);
}

/* Lane l of the vector state y at t[l]: a sample, then (kinds[e] set) an event of each
 * kind e at it. */
static inline void ish_trace_lane(ish_tracer *tr, int l, lv_double t, const lv_double *y,
                                  int step, const lv_mask *fired, int events, int extra)
{
    double yl[IS_HYBRID_MAX_DIM], tl = t[l];
    for (int i = 0; i < tr->dimension; i++)
        yl[i] = y[i][l];
    ish_trace_sample(tr, tl, yl, step);
    for (int e = 0; fired && e < events; e++)
        if (lv_mask_lane(fired[e], l))
            ish_trace_event(tr, e, tl, yl);
    if (extra >= 0)
        ish_trace_event(tr, extra, tl, yl);
}

/* The lanes m: samples of (t, y), and the events fired[] (NULL: none) at them, and the
 * kind `extra` (-1: none). */
static inline void ish_trace_lanes(ish_tracer *tr, lv_mask m, lv_double t, const lv_double *y,
                                   int step, const lv_mask *fired, int events, int extra)
{
    for (int l = 0; l < LV_WIDTH; l++)
        if (lv_mask_lane(m, l))
            ish_trace_lane(tr, l, t, y, step, fired, events, extra);
}

/* --- the trace table ---------------------------------------------------------------- */

/* What is_hybrid_trace_table fills: a model table with its trace, and the names. */
typedef struct is_hybrid_traced {
    is_model model;
    is_model_trace trace;
    is_trace_channel channels[IS_HYBRID_MAX_DIM];
    char names[IS_HYBRID_MAX_DIM][ISH_TRACE_NAME], long_names[IS_HYBRID_MAX_DIM][64];
    const char *kinds[IS_HYBRID_MAX_EVENTS + 2];
    char kind_names[IS_HYBRID_MAX_EVENTS][ISH_TRACE_NAME];
    is_param option;
} is_hybrid_traced;

/* Runs point (a validated point of table) through table's eval_batch, whose
 * is_hybrid_run of sys writes into sink: is_model_trace.run for IS_HYBRID_PLUGIN. */
static inline is_code is_hybrid_trace_eval(const is_hybrid_system *sys, const is_model *table,
                                           void *workspace, const double *point,
                                           const double *options, const is_trace_sink *sink,
                                           double *outputs, uint8_t *status, is_error *err)
{
    ish_tracer tr = {.sink = sink, .dimension = sys->dimension, .kinds = sys->events + 1,
                     .dt = options ? options[0] : 0.0, .code = IS_OK};
    size_t values = 0; /* a point's values: an array output holds its length */
    for (size_t o = 0; o < table->output_count; o++)
        values += table->outputs[o].length > 1 ? table->outputs[o].length : 1;
    for (size_t v = 0; v < values; v++)
        outputs[v] = NAN; /* as eval_batch's outputs come */
    *status = IS_POINT_PENDING;
    ish_tracer *outer = ish_tracing;
    ish_tracing = &tr;
    is_code rc = table->eval_batch(workspace, point, 1, outputs, status, err);
    ish_tracing = outer;
    return tr.code != IS_OK ? tr.code : rc; /* (a sink's message is in err already) */
}

/* The table with a trace of sys run by `run` (which calls is_hybrid_trace_eval), in
 * *out; the table itself if it has a trace of its own. */
static inline const is_model *is_hybrid_trace_table(is_hybrid_traced *out, const is_model *table,
                                                    const is_hybrid_system *sys,
                                                    is_code (*run)(void *, const double *,
                                                                   const double *,
                                                                   const is_trace_sink *,
                                                                   double *, uint8_t *,
                                                                   is_error *))
{
    static const char *const kind_word[] = {"land", "observe", "kink", "reset", "rough"};
    if (table->trace)
        return table;
    const char *unit = sys->time_unit ? sys->time_unit : "1";
    for (int i = 0; i < sys->dimension; i++) {
        const char *name = sys->state_name[i];
        if (!name) {
            snprintf(out->names[i], ISH_TRACE_NAME, "y%d", i);
            name = out->names[i];
        }
        snprintf(out->long_names[i], sizeof out->long_names[i], "state %s", name);
        out->channels[i] = (is_trace_channel){name, sys->state_unit[i] ? sys->state_unit[i] : "1",
                                              out->long_names[i]};
    }
    for (int e = 0; e < sys->events; e++) {
        out->kinds[e] = sys->event_name[e];
        if (!out->kinds[e]) {
            int k = sys->kind[e] < 5 ? sys->kind[e] : 0;
            snprintf(out->kind_names[e], ISH_TRACE_NAME, "%s_%d", kind_word[k], e);
            out->kinds[e] = out->kind_names[e];
        }
    }
    out->kinds[sys->events] = "accumulation";
    out->kinds[sys->events + 1] = NULL;
    out->option = (is_param){"dt", "shortest time between two samples of steps (0: every "
                             "accepted step; events are always sampled)",
                             unit, IS_PARAM_REAL, 0.0, 0.0, 1e300, 0, NULL, NULL, NULL};
    out->trace = (is_model_trace){unit, "time", out->channels, (size_t)sys->dimension,
                                  out->kinds, &out->option, 1, run};
    out->model = *table;
    out->model.trace = &out->trace;
    return &out->model;
}

/* A plug-in on hybrid.h: IS_MODEL_PLUGIN(table), its table given a trace of `system` (a
 * const is_hybrid_system that table's eval_batch runs with is_hybrid_run, in this file)
 * unless it has one. */
#define IS_HYBRID_PLUGIN(table, system)                                                      \
    static is_code ish_plugin_trace(void *ws, const double *point, const double *options,   \
                                    const is_trace_sink *sink, double *outputs,              \
                                    uint8_t *status, is_error *err)                          \
    {                                                                                        \
        return is_hybrid_trace_eval(&(system), &(table), ws, point, options, sink, outputs, \
                                    status, err);                                            \
    }                                                                                        \
    __attribute__((visibility("default"))) const int impactsweep_model_abi =                \
        IS_MODEL_ABI_VERSION;                                                                \
    __attribute__((visibility("default"))) const is_model *impactsweep_model(void)          \
    {                                                                                        \
        static is_hybrid_traced traced;                                                      \
        return is_hybrid_trace_table(&traced, &(table), &(system), ish_plugin_trace);       \
    }

#endif
