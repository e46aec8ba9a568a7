/* test_trace.c: the trajectories of `impactsweep trace` (model.h: is_model_trace). For
 * every model with a trace, over points that reach each way a point can end (collision:
 * separation, no separation, the horizon, a solver failure, every law, both
 * integrators; chatter: ICC, CC, PCC and flat drops, the rod; stop oscillator: free,
 * impacting, Zeno, an approach to a periodic orbit, CVODE, the budget): the trace
 * evaluates the point to exactly eval_batch's outputs and status, its last state is what those outputs are
 * read from, bit for bit, and the trajectory is physically consistent (collision: the
 * force at every sample is the law's force at that state, the energy never above the
 * impact energy; chatter: the vertex hit is on the plane, the energy never rises, the
 * drops make up the point's fractions; stop: the energy never rises beyond rounding and
 * is the energy at every event). Also the contract's tables, a failing sink, the stop
 * flag, the trace file's output checks. */
#include <CUnit/CUnit.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/contract/engine.h"
#include "core/job/job.h"
#include "core/store/trace_file.h"
#include "models/chatter/chatter.h"
#include "models/collision/collision.h"
#include "models/registry.h"
#include "models/stop_oscillator/stop_oscillator.h"
#include "suites.h"

/* --- a sink that keeps everything ------------------------------------------------------- */

typedef struct recorded {
    size_t channels;
    size_t samples, capacity;
    double *t, *v;          /* samples x channels */
    size_t events, event_capacity;
    double *et, *ev;
    int *ek;
    size_t fail_at;         /* the sink fails at this call (1, 2, ...; 0: never) */
    size_t calls;
    is_error *err;
} recorded;

static is_code keep(recorded *r, int event, double t, int kind, const double *values)
{
    if (r->fail_at && ++r->calls >= r->fail_at)
        return is_error_set(r->err, IS_NOMEM, "the test's sink fails at call %zu", r->calls);
    size_t *n = event ? &r->events : &r->samples, *cap = event ? &r->event_capacity
                                                               : &r->capacity;
    double **times = event ? &r->et : &r->t, **vals = event ? &r->ev : &r->v;
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *times = realloc(*times, *cap * sizeof **times);
        *vals = realloc(*vals, *cap * r->channels * sizeof **vals);
        if (event)
            r->ek = realloc(r->ek, *cap * sizeof *r->ek);
        if (!*times || !*vals || (event && !r->ek))
            return is_error_set(r->err, IS_NOMEM, "out of memory");
    }
    (*times)[*n] = t;
    memcpy(*vals + *n * r->channels, values, r->channels * sizeof *values);
    if (event)
        r->ek[*n] = kind;
    (*n)++;
    return IS_OK;
}

static is_code keep_sample(void *context, double t, const double *values)
{
    return keep(context, 0, t, 0, values);
}

static is_code keep_event(void *context, double t, int kind, const double *values)
{
    return keep(context, 1, t, kind, values);
}

static void recorded_free(recorded *r)
{
    free(r->t);
    free(r->v);
    free(r->et);
    free(r->ev);
    free(r->ek);
    memset(r, 0, sizeof *r);
}

/* Channel c of sample i, of event i. */
#define S(rec, i, c) ((rec)->v[(size_t)(i) * (rec)->channels + (size_t)(c)])
#define E(rec, i, c) ((rec)->ev[(size_t)(i) * (rec)->channels + (size_t)(c)])

static int channel(const is_model *m, const char *name)
{
    for (size_t c = 0; c < m->trace->channel_count; c++)
        if (strcmp(m->trace->channels[c].name, name) == 0)
            return (int)c;
    CHECK(0, "model %s: no trace channel %s", m->name, name);
    return 0;
}

static int event_kind(const is_model *m, const char *name)
{
    for (int k = 0; m->trace->events[k]; k++)
        if (strcmp(m->trace->events[k], name) == 0)
            return k;
    CHECK(0, "model %s: no event kind %s", m->name, name);
    return -1;
}

static size_t count_events(const is_model *m, const recorded *r, const char *name)
{
    int kind = event_kind(m, name);
    size_t n = 0;
    for (size_t i = 0; i < r->events; i++)
        n += r->ek[i] == kind;
    return n;
}

/* The options' defaults, with `name` set to `value` if given. */
static void default_options(const is_model *m, double *options, const char *name, double value)
{
    for (size_t o = 0; o < m->trace->option_count; o++)
        options[o] = name && strcmp(m->trace->options[o].name, name) == 0
                         ? value
                         : m->trace->options[o].default_value;
}

/* Runs the trace of one point in a fresh workspace (watching `stop` if given). */
static is_code trace_point(const is_model *m, const double *point, const double *options,
                           recorded *rec, double *outputs, uint8_t *status,
                           const volatile sig_atomic_t *stop, is_error *err)
{
    void *ws = NULL;
    rec->channels = m->trace->channel_count;
    rec->err = err;
    is_code rc = m->workspace_create ? m->workspace_create(&ws, err) : IS_OK;
    if (rc != IS_OK)
        return rc;
    if (stop && m->workspace_watch)
        m->workspace_watch(ws, stop);
    is_trace_sink sink = {keep_sample, keep_event, rec};
    double defaults[16];
    if (!options) {
        default_options(m, defaults, NULL, 0);
        options = defaults;
    }
    rc = m->trace->run(ws, point, options, &sink, outputs, status, err);
    if (m->workspace_free)
        m->workspace_free(ws);
    return rc;
}

/* eval_batch on the point, alone (count 1). */
static void eval_point(const is_model *m, const double *point, double *outputs,
                       uint8_t *status)
{
    void *ws = NULL;
    is_error err;
    CU_ASSERT_FATAL(m->workspace_create(&ws, &err) == IS_OK);
    CU_ASSERT(m->eval_batch(ws, point, 1, outputs, status, &err) == IS_OK);
    m->workspace_free(ws);
}

/* Bit for bit (NaN payloads too). */
static int same_bits(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* The trace's evaluation is eval_batch's, bit for bit; samples and events in time
 * order, each event at a sample with the values of the last sample at its time. */
static void check_common(const is_model *m, const double *point, const recorded *rec,
                         const double *outputs, uint8_t status, const char *label)
{
    double expected[64];
    uint8_t expected_status;
    eval_point(m, point, expected, &expected_status);
    size_t first_diff = 0;
    while (first_diff < m->output_count &&
           same_bits(&expected[first_diff], &outputs[first_diff], 1))
        first_diff++;
    CHECK(status == expected_status && first_diff == m->output_count,
          "%s %s: trace gives status %d and %s = %.17g, eval %d and %.17g", m->name, label,
          status, first_diff < m->output_count ? m->outputs[first_diff].name : "-",
          first_diff < m->output_count ? outputs[first_diff] : 0.0, expected_status,
          first_diff < m->output_count ? expected[first_diff] : 0.0);
    CHECK(rec->samples >= 1 && rec->events >= 1, "%s %s: %zu samples, %zu events", m->name,
          label, rec->samples, rec->events);
    int ordered = 1;
    for (size_t i = 1; i < rec->samples; i++)
        ordered &= rec->t[i] >= rec->t[i - 1];
    for (size_t i = 1; i < rec->events; i++)
        ordered &= rec->et[i] >= rec->et[i - 1];
    CHECK(ordered, "%s %s: samples or events out of time order", m->name, label);
    size_t unmatched = 0, j = 0;
    for (size_t e = 0; e < rec->events; e++) {
        /* the last sample at or before the event's time */
        while (j + 1 < rec->samples && rec->t[j + 1] <= rec->et[e])
            j++;
        int found = 0;
        for (size_t i = j + 1; i-- > 0 && rec->t[i] == rec->et[e] && !found;)
            found = same_bits(&rec->ev[e * rec->channels], &rec->v[i * rec->channels],
                              rec->channels);
        unmatched += !found;
    }
    CHECK(unmatched == 0, "%s %s: %zu of %zu events not at a sample of theirs", m->name,
          label, unmatched, rec->events);
}

/* --- the contract's tables ------------------------------------------------------------- */

static int is_name(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

static void test_tables(void)
{
    int traced = 0;
    for (const is_model *const *each = is_registry_models(); *each; each++) {
        const is_model *m = *each;
        const is_model_trace *tr = m->trace;
        if (!tr)
            continue;
        traced++;
        CHECK(tr->run && tr->time_unit && tr->time_long_name && tr->channel_count > 0 &&
                  tr->events && tr->events[0],
              "%s: incomplete trace table", m->name);
        for (size_t c = 0; c < tr->channel_count; c++) {
            const is_trace_channel *ch = &tr->channels[c];
            CHECK(is_name(ch->name) && strcmp(ch->name, "t") != 0 &&
                      strncmp(ch->name, "event_", 6) != 0 && ch->unit && *ch->unit &&
                      ch->long_name && *ch->long_name,
                  "%s: channel %zu (%s) badly named or described", m->name, c,
                  ch->name ? ch->name : "NULL");
            for (size_t d = 0; d < c; d++)
                CHECK(!ch->name || strcmp(tr->channels[d].name, ch->name) != 0,
                      "%s: channel %s twice", m->name, ch->name ? ch->name : "NULL");
        }
        for (int k = 0; tr->events[k]; k++)
            CHECK(is_name(tr->events[k]), "%s: event kind %d '%s'", m->name, k, tr->events[k]);
        for (size_t o = 0; o < tr->option_count; o++) {
            is_error err;
            CHECK(is_model_param_index(m, tr->options[o].name) < 0 &&
                      is_param_check(&tr->options[o], tr->options[o].default_value, &err) ==
                          IS_OK,
                  "%s: trace option %s clashes with a parameter or has a bad default",
                  m->name, tr->options[o].name);
        }
    }
    CHECK(traced == 3, "%d models with a trace, expected chatter, collision, stop-oscillator",
          traced);
    CHECK(is_registry_find("synthetic") && !is_registry_find("synthetic")->trace,
          "the synthetic model has no trace (the command line's 'no trajectory' case)");
}

/* --- collision -------------------------------------------------------------------------- */

typedef struct collision_case {
    const char *law, *integrator, *method;
    double pi1, pi2, pi3, p, alpha, t_max, max_steps;
    int outcome; /* the outcome expected */
} collision_case;

static void collision_point(double *point, const collision_case *c)
{
    const is_model *m = &is_model_collision;
    is_error err;
    for (size_t p = 0; p < m->param_count; p++)
        point[p] = m->params[p].default_value;
    CU_ASSERT_FATAL(is_job_parse_param_value(m, "test", "law", c->law, &point[COLLISION_LAW],
                                             &err) == IS_OK);
    CU_ASSERT_FATAL(is_job_parse_param_value(m, "test", "integrator", c->integrator,
                                             &point[COLLISION_INTEGRATOR], &err) == IS_OK);
    CU_ASSERT_FATAL(is_job_parse_param_value(m, "test", "cvode_method", c->method,
                                             &point[COLLISION_CVODE_METHOD], &err) == IS_OK);
    point[COLLISION_PI1] = c->pi1;
    point[COLLISION_PI2] = c->pi2;
    point[COLLISION_PI3] = c->pi3;
    point[COLLISION_P] = c->p;
    point[COLLISION_ALPHA] = c->alpha;
    if (c->t_max > 0)
        point[COLLISION_T_MAX] = c->t_max;
    if (c->max_steps > 0)
        point[COLLISION_MAX_STEPS] = c->max_steps;
}

static void test_collision(void)
{
    static const collision_case cases[] = {
        {"bwshc", "cvode", "adams", 0.5, 1, 0.5, 1.5, 0.5, 0, 0, OUTCOME_SEPARATED},
        {"bwshc", "dopri5", "adams", 0.5, 1, 0.5, 1.5, 0.5, 0, 0, OUTCOME_SEPARATED},
        {"bwshc", "cvode", "bdf", 0.5, 1, 0.5, 1.5, 0.5, 0, 0, OUTCOME_SEPARATED},
        {"bwshc", "cvode", "adams", 50, 1, 0.5, 1.5, 0.5, 0, 0, OUTCOME_SEPARATED},
        {"bwm", "cvode", "adams", 0.05, 1, 0.5, 1.5, 0.5, 0, 0, OUTCOME_SEPARATED},
        {"bwm", "dopri5", "adams", 0.4, 1, 0.5, 1, 0.5, 0, 0, OUTCOME_SEPARATED},
        {"bwm", "cvode", "adams", 50, 1, 0.5, 1.5, 0.5, 0, 0, OUTCOME_HORIZON},
        {"hooke", "cvode", "adams", 0, 0, 0, 1, 1, 0, 0, OUTCOME_SEPARATED},
        {"hertz", "dopri5", "adams", 0, 0, 0, 1.5, 1, 0, 0, OUTCOME_SEPARATED},
        {"kelvin-voigt", "dopri5", "adams", 2, 0, 0, 1, 1, 0, 0, OUTCOME_SEPARATED},
        {"kelvin-voigt", "cvode", "adams", 0.3, 0, 0, 1, 1, 0, 0, OUTCOME_SEPARATED},
        {"hunt-crossley", "cvode", "adams", 0.8, 0, 0, 1.5, 1, 0, 0, OUTCOME_SEPARATED},
        {"hunt-crossley", "dopri5", "adams", 5, 0, 0, 1.5, 1, 1.0, 0, OUTCOME_HORIZON},
        {"maxwell", "cvode", "adams", 0.4, 0, 0, 1, 1, 0, 0, OUTCOME_SEPARATED},
        {"maxwell", "cvode", "adams", 10, 0, 0, 1, 1, 0, 0, OUTCOME_NO_SEPARATION},
        {"maxwell", "dopri5", "adams", 10, 0, 0, 1, 1, 0, 0, OUTCOME_NO_SEPARATION},
        {"bwshc", "cvode", "adams", 0.5, 1, 0.5, 1.5, 0.5, 0, 20, OUTCOME_SOLVER_FAILURE},
        {"bwshc", "dopri5", "adams", 0.5, 1, 0.5, 1.5, 0.5, 0, 20, OUTCOME_SOLVER_FAILURE},
    };
    const is_model *m = &is_model_collision;
    const int cx = channel(m, "x"), cv = channel(m, "v"), cz = channel(m, "z"),
              cy = channel(m, "y"), cf = channel(m, "force"), ci = channel(m, "indentation"),
              ce = channel(m, "energy");
    const int k_max = event_kind(m, "max_compression"), k_min = event_kind(m, "min_compression"),
              k_fmax = event_kind(m, "force_max");
    for (size_t n = 0; n < sizeof cases / sizeof *cases; n++) {
        const collision_case *c = &cases[n];
        char label[160];
        snprintf(label, sizeof label, "%s %s %s pi1 %g%s", c->law, c->integrator, c->method,
                 c->pi1, c->max_steps > 0 ? " (budget)" : "");
        double point[COLLISION_PARAM_COUNT], out[COLLISION_OUTPUT_COUNT];
        collision_point(point, c);
        is_error err;
        CU_ASSERT_FATAL(is_model_collision.validate(point, &err) == IS_OK);
        recorded rec = {0};
        uint8_t status;
        CU_ASSERT_FATAL(trace_point(m, point, NULL, &rec, out, &status, NULL, &err) == IS_OK);
        check_common(m, point, &rec, out, status, label);
        CHECK(out[COLLISION_OUTCOME] == c->outcome, "%s: outcome %g, expected %d", label,
              out[COLLISION_OUTCOME], c->outcome);
        size_t last = rec.samples - 1;
        const char *end = c->outcome == OUTCOME_SEPARATED       ? "separation"
                          : c->outcome == OUTCOME_NO_SEPARATION ? "rest"
                          : c->outcome == OUTCOME_HORIZON       ? "horizon"
                                                                : "solver_failure";
        CHECK(rec.ek[rec.events - 1] == event_kind(m, end) && rec.ek[0] == event_kind(m, "contact"),
              "%s: events from %s to %s expected, got %s to %s", label, "contact", end,
              m->trace->events[rec.ek[0]], m->trace->events[rec.ek[rec.events - 1]]);
        if (c->outcome == OUTCOME_SOLVER_FAILURE) {
            CHECK(status == IS_POINT_FAILED_BUDGET, "%s: status %d", label, status);
        } else {
            /* the last state is where the outputs come from */
            double cor = c->outcome == OUTCOME_SEPARATED ? S(&rec, last, cv) : 0.0;
            CHECK(out[COLLISION_COR] == cor && out[COLLISION_X_SEP] == S(&rec, last, ci),
                  "%s: cor %.17g x_sep %.17g, the last sample v %.17g indentation %.17g", label,
                  out[COLLISION_COR], out[COLLISION_X_SEP], S(&rec, last, cv),
                  S(&rec, last, ci));
            if (c->outcome == OUTCOME_SEPARATED)
                CHECK(out[COLLISION_T_SEP] == rec.t[last], "%s: t_sep %.17g, last t %.17g",
                      label, out[COLLISION_T_SEP], rec.t[last]);
            /* x_max and f_max from the events, as the tracker takes them */
            double x_max = fmax(0.0, S(&rec, last, ci)), f_max = fmax(0.0, S(&rec, 0, cf));
            for (size_t e = 0; e < rec.events; e++) {
                if (rec.ek[e] == k_max || rec.ek[e] == k_min)
                    x_max = fmax(x_max, E(&rec, e, ci));
                if (rec.ek[e] == k_fmax)
                    f_max = fmax(f_max, E(&rec, e, cf));
            }
            CHECK(out[COLLISION_X_MAX] == x_max && out[COLLISION_F_MAX] == f_max,
                  "%s: x_max %.17g f_max %.17g, from the events %.17g %.17g", label,
                  out[COLLISION_X_MAX], out[COLLISION_F_MAX], x_max, f_max);
        }
        /* the law's force at every sample; the energy never above the impact energy */
        collision_problem pb;
        CU_ASSERT_FATAL(collision_problem_from_point(point, &pb, &err) == IS_OK);
        size_t wrong = 0, above = 0, first_wrong = 0;
        double tol = fmax(10.0 * pb.rtol, 1e-12);
        for (size_t i = 0; i < rec.samples; i++) {
            double y[4];
            if (pb.dimension == 4) { /* F = -(alpha |Y|^(p-1) Y + alpha_c |Z|^(p-1) Z) */
                y[0] = 0.0, y[1] = S(&rec, i, cy), y[2] = S(&rec, i, cz), y[3] = 0.0;
            } else {
                y[0] = S(&rec, i, cx), y[1] = S(&rec, i, cv), y[2] = S(&rec, i, cz);
            }
            double force = collision_force(&pb, y);
            if (!same_bits(&force, &S(&rec, i, cf), 1) && !wrong++)
                first_wrong = i;
            above += !(S(&rec, i, ce) <= 0.5 + tol) && c->outcome != OUTCOME_SOLVER_FAILURE;
            wrong += S(&rec, i, ci) != -S(&rec, i, cx);
        }
        CHECK(wrong == 0, "%s: %zu samples whose force is not the law's (first %zu: %.17g)",
              label, wrong, first_wrong, S(&rec, first_wrong, cf));
        CHECK(above == 0, "%s: %zu samples with the energy above 1/2", label, above);
        /* a step per sample, besides the events: dense */
        CHECK(rec.samples >= (size_t)out[COLLISION_STEPS] / 2,
              "%s: %zu samples for %g steps", label, rec.samples, out[COLLISION_STEPS]);
        recorded_free(&rec);
    }
}

/* A small deterministic generator for the random points. */
static double uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / 9007199254740992.0;
}

/* Random points of every law and integrator: the trace's evaluation is eval's, bit for
 * bit, and its last sample is where cor and x_sep come from. */
static void test_collision_random(void)
{
    static const char *const laws[] = {"bwshc", "bwm", "hooke", "hertz", "kelvin-voigt",
                                       "hunt-crossley", "maxwell"};
    static const char *const integrators[] = {"cvode", "dopri5"};
    static const char *const methods[] = {"adams", "bdf"};
    const is_model *m = &is_model_collision;
    int cv = channel(m, "v"), ci = channel(m, "indentation");
    uint64_t state = 42;
    int tried = 0, differing = 0, wrong_end = 0;
    for (int i = 0; i < 300; i++) {
        collision_case c = {laws[i % 7], integrators[(i / 7) % 2], methods[(i / 14) % 2],
                            pow(10.0, -2.0 + 3.5 * uniform(&state)),
                            pow(10.0, -1.0 + 2.0 * uniform(&state)), 0,
                            1.0 + 2.0 * uniform(&state), 0.05 + 0.9 * uniform(&state), 0, 0, 0};
        c.pi3 = c.pi2 * (2.0 * uniform(&state) - 1.0) * 0.9;
        double point[COLLISION_PARAM_COUNT], out[COLLISION_OUTPUT_COUNT],
            expected[COLLISION_OUTPUT_COUNT];
        collision_point(point, &c);
        is_error err;
        if (is_model_collision.validate(point, &err) != IS_OK)
            continue;
        tried++;
        recorded rec = {0};
        uint8_t status, expected_status;
        CU_ASSERT_FATAL(trace_point(m, point, NULL, &rec, out, &status, NULL, &err) == IS_OK);
        eval_point(m, point, expected, &expected_status);
        if (status != expected_status || !same_bits(out, expected, COLLISION_OUTPUT_COUNT)) {
            if (!differing++)
                CHECK(0, "%s %s %s pi1 %.17g pi2 %.17g pi3 %.17g p %.17g alpha %.17g: trace "
                      "cor %.17g, eval %.17g", c.law, c.integrator, c.method, c.pi1, c.pi2,
                      c.pi3, c.p, c.alpha, out[COLLISION_COR], expected[COLLISION_COR]);
        }
        size_t last = rec.samples - 1;
        if (status == IS_POINT_DONE &&
            (out[COLLISION_X_SEP] != S(&rec, last, ci) ||
             (out[COLLISION_OUTCOME] == OUTCOME_SEPARATED && out[COLLISION_COR] != S(&rec, last, cv))))
            wrong_end++;
        recorded_free(&rec);
    }
    CHECK(tried >= 200 && differing == 0 && wrong_end == 0,
          "%d random points: %d differ from eval, %d whose last sample is not their result",
          tried, differing, wrong_end);
}

/* The Bouc-Wen loop closes on itself as the paper's figures draw it: the force rises
 * with the indentation, peaks, and falls to 0 at a permanent indentation. */
static void test_collision_hysteresis_loop(void)
{
    const is_model *m = &is_model_collision;
    collision_case c = {"bwshc", "cvode", "adams", 0.5, 1, 0.5, 1.5, 0.5, 0, 0, 0};
    double point[COLLISION_PARAM_COUNT], out[COLLISION_OUTPUT_COUNT];
    collision_point(point, &c);
    recorded rec = {0};
    uint8_t status;
    is_error err;
    CU_ASSERT_FATAL(trace_point(m, point, NULL, &rec, out, &status, NULL, &err) == IS_OK);
    int ci = channel(m, "indentation"), cf = channel(m, "force");
    size_t peak = 0;
    for (size_t i = 0; i < rec.samples; i++)
        if (S(&rec, i, cf) > S(&rec, peak, cf))
            peak = i;
    size_t last = rec.samples - 1;
    CHECK(S(&rec, peak, cf) == out[COLLISION_F_MAX] && S(&rec, last, ci) > 0.0 &&
              fabs(S(&rec, last, cf)) < 1e-6 && S(&rec, last, ci) < out[COLLISION_X_MAX],
          "loop: peak %.17g (f_max %.17g), ends at indentation %.17g with force %.3g",
          S(&rec, peak, cf), out[COLLISION_F_MAX], S(&rec, last, ci), S(&rec, last, cf));
    recorded_free(&rec);
}

/* --- chatter ---------------------------------------------------------------------------- */

static void chatter_point(double *point, int n, double rho, double gamma, int samples,
                          int max_impacts)
{
    for (size_t p = 0; p < CHATTER_PARAM_COUNT; p++)
        point[p] = is_model_chatter.params[p].default_value;
    point[CHATTER_N] = n;
    point[CHATTER_RHO] = rho;
    point[CHATTER_GAMMA] = gamma;
    point[CHATTER_SAMPLES] = samples;
    point[CHATTER_MAX_IMPACTS] = max_impacts;
}

static void test_chatter(void)
{
    static const struct {
        int n;
        double rho, gamma;
        int samples, max_impacts;
        const char *classes; /* the classes expected among the drops */
    } cases[] = {
        {4, 0.3, 0.1, 12, 200, "cc"},        /* complete chatter */
        {4, 0.3, 0.5, 12, 200, "icc"},       /* lift-off after a few impacts */
        {4, 0.3, 0.1, 6, 5, "cc"},           /* the budget ends it early */
        {3, 0.2, 0.06, 50, 200, "cc pcc"},   /* mostly CC, a PCC drop */
        {3, 0.1, 0.05, 8, 200, "pcc"},       /* partial complete chatter */
        {3, 0.6746, 0.000289, 8, 200, "flat"}, /* a flat landing (pair eigenvalues complex) */
        {3, 0.46429424955138265, 0.005, 8, 10000, "pcc"}, /* issue 21's corner */
        {2, 0.3, 0.1, 6, 300, "cc"},         /* the rod */
        {2, 0.5, 0.3, 6, 200, "icc"},
        {5, 0.5, 0.2, 10, 200, "icc"},
    };
    const is_model *m = &is_model_chatter;
    const int c_imp = channel(m, "impacts"), c_vert = channel(m, "vertex"),
              c_q1 = channel(m, "q1"), c_q2 = channel(m, "q2"), c_q3 = channel(m, "q3"),
              c_qe = channel(m, "q_exponent"), c_en = channel(m, "log2_energy");
    for (size_t n = 0; n < sizeof cases / sizeof *cases; n++) {
        double point[CHATTER_PARAM_COUNT], out[CHATTER_OUTPUT_COUNT];
        chatter_point(point, cases[n].n, cases[n].rho, cases[n].gamma, cases[n].samples,
                      cases[n].max_impacts);
        chatter_geometry geometry;
        chatter_geometry_init(&geometry, cases[n].n);
        int64_t tally[CHATTER_OUTCOMES] = {0};
        double impacts_sum = 0.0, impacts_max = 0.0, time_sum = 0.0;
        for (int drop = 0; drop < cases[n].samples; drop++) {
            char label[128];
            snprintf(label, sizeof label, "n %d rho %g gamma %g drop %d", cases[n].n,
                     cases[n].rho, cases[n].gamma, drop);
            double options[1];
            default_options(m, options, "drop", drop);
            recorded rec = {0};
            uint8_t status;
            is_error err;
            CU_ASSERT_FATAL(trace_point(m, point, options, &rec, out, &status, NULL, &err) ==
                            IS_OK);
            if (drop == 0 || drop == cases[n].samples - 1)
                check_common(m, point, &rec, out, status, label);
            /* the decision is the last event; the drop's impacts and time are the last
             * sample's */
            int decision = rec.ek[rec.events - 1];
            if (decision == event_kind(m, "energy_rose"))
                decision = rec.ek[rec.events - 2];
            static const char *const names[CHATTER_OUTCOMES] = {"icc", "cc", "pcc", "flat"};
            int outcome = decision == event_kind(m, "icc")         ? CHATTER_ICC
                          : decision == event_kind(m, "cc")        ? CHATTER_CC
                          : decision == event_kind(m, "certified") ? CHATTER_CC
                          : decision == event_kind(m, "pcc")       ? CHATTER_PCC
                          : decision == event_kind(m, "flat")      ? CHATTER_FLAT
                                                                   : -1;
            CU_ASSERT_FATAL(outcome >= 0);
            size_t last = rec.samples - 1;
            tally[outcome]++;
            impacts_sum += S(&rec, last, c_imp);
            impacts_max = fmax(impacts_max, S(&rec, last, c_imp));
            time_sum += rec.t[last];
            CHECK(strstr(cases[n].classes, names[outcome]) != NULL,
                  "%s: class %s, expected among %s", label, m->trace->events[decision],
                  cases[n].classes);
            /* the scalar reference simulation of the same drop */
            double q0[3], p0[3];
            chatter_initial_state(point, (uint64_t)drop, q0, p0);
            chatter_drop reference;
            chatter_region region; /* the early stop of certified drops, as the kernel's */
            int rounds;
            chatter_cone_work *work = chatter_cone_work_create();
            CU_ASSERT_PTR_NOT_NULL_FATAL(work);
            chatter_point_certificate(point, work, &rounds, &region);
            chatter_cone_work_free(work);
            chatter_drop_reference_certified(&geometry, cases[n].rho, cases[n].gamma,
                                             cases[n].max_impacts, &region, q0, p0,
                                             &reference);
            CHECK(reference.certified == (decision == event_kind(m, "certified")),
                  "%s: certified in the trace and the reference differ", label);
            CHECK((int)reference.outcome == outcome &&
                      (double)reference.impacts == S(&rec, last, c_imp),
                  "%s: trace %s after %g impacts, reference %d after %lld", label,
                  m->trace->events[decision], S(&rec, last, c_imp), reference.outcome,
                  (long long)reference.impacts);
            /* physically: sample k is impact k; the vertex hit is on the plane; the
             * kinetic energy never rises; the time is finite */
            CHECK(isfinite(rec.t[last]), "%s: time %g", label, rec.t[last]);
            size_t bad_count = 0, off_plane = 0, rises = 0;
            for (size_t i = 0; i < rec.samples; i++) {
                bad_count += S(&rec, i, c_imp) != (double)i;
                if (i == 0)
                    continue;
                /* f_j.q = 0 to the rounding of the flight q + t p, from the q before it
                 * (in this sample's scale) */
                int j = (int)S(&rec, i, c_vert);
                double q[3] = {S(&rec, i, c_q1), S(&rec, i, c_q2), S(&rec, i, c_q3)};
                double height = geometry.fx[j] * q[0] + geometry.fy[j] * q[1] + q[2];
                double before = ldexp(fabs(S(&rec, i - 1, c_q1)) + fabs(S(&rec, i - 1, c_q2)) +
                                          fabs(S(&rec, i - 1, c_q3)),
                                      (int)(S(&rec, i - 1, c_qe) - S(&rec, i, c_qe)));
                double size = fmax(before, fabs(q[0]) + fabs(q[1]) + fabs(q[2]));
                off_plane += !(fabs(height) <= 64 * DBL_EPSILON * size);
                rises += !(S(&rec, i, c_en) <= S(&rec, i - 1, c_en) + 1e-12);
            }
            CHECK(bad_count == 0 && off_plane == 0 && rises == 0,
                  "%s: %zu samples out of step, %zu vertices hit off the plane, %zu energy "
                  "rises",
                  label, bad_count, off_plane, rises);
            recorded_free(&rec);
        }
        /* the drops make up the point's results, bit for bit */
        double total = cases[n].samples;
        CHECK(out[CHATTER_P_ICC] == tally[CHATTER_ICC] / total &&
                  out[CHATTER_P_CC] == tally[CHATTER_CC] / total &&
                  out[CHATTER_P_PCC] == tally[CHATTER_PCC] / total &&
                  out[CHATTER_P_FLAT] == tally[CHATTER_FLAT] / total &&
                  out[CHATTER_IMPACTS_MEAN] == impacts_sum / total &&
                  out[CHATTER_IMPACTS_MAX] == impacts_max &&
                  out[CHATTER_TIME_MEAN] == time_sum / total,
              "n %d rho %g gamma %g: the point (%g %g %g, %.17g impacts, %.17g time) is not "
              "its traced drops (%lld %lld %lld, %.17g, %.17g)",
              cases[n].n, cases[n].rho, cases[n].gamma, out[CHATTER_P_ICC], out[CHATTER_P_CC],
              out[CHATTER_P_PCC], out[CHATTER_IMPACTS_MEAN], out[CHATTER_TIME_MEAN],
              (long long)tally[0], (long long)tally[1], (long long)tally[2],
              impacts_sum / total, time_sum / total);
    }
}

static void test_chatter_drop_range(void)
{
    const is_model *m = &is_model_chatter;
    double point[CHATTER_PARAM_COUNT], out[CHATTER_OUTPUT_COUNT], options[1];
    chatter_point(point, 4, 0.3, 0.1, 5, 50);
    default_options(m, options, "drop", 5);
    recorded rec = {0};
    uint8_t status;
    is_error err;
    is_code rc = trace_point(m, point, options, &rec, out, &status, NULL, &err);
    CHECK(rc == IS_PARAM && strstr(err.message, "drop") && rec.samples == 0,
          "drop 5 of 5 drops: code %d, '%s'", rc, rc ? err.message : "");
    recorded_free(&rec);
}

/* --- stop oscillator -------------------------------------------------------------------- */

static void stop_point(double *point, const char *const *settings)
{
    const is_model *m = &is_model_stop_oscillator;
    for (size_t p = 0; p < m->param_count; p++)
        point[p] = m->params[p].default_value;
    for (; *settings; settings += 2) {
        is_error err;
        int p = is_model_param_index(m, settings[0]);
        CU_ASSERT_FATAL(p >= 0 && is_job_parse_param_value(m, "test", settings[0], settings[1],
                                                           &point[p], &err) == IS_OK);
    }
}

static void check_stop(const double *point, const char *label, const char *regime,
                       double resolution)
{
    const is_model *m = &is_model_stop_oscillator;
    const int c_x1 = channel(m, "x1"), c_v1 = channel(m, "v1"), c_e = channel(m, "energy");
    double out[STOP_OUTPUT_COUNT], options[1];
    default_options(m, options, "resolution", resolution);
    recorded rec = {0};
    uint8_t status;
    is_error err;
    CU_ASSERT_FATAL(is_model_stop_oscillator.validate(point, &err) == IS_OK);
    CU_ASSERT_FATAL(trace_point(m, point, options, &rec, out, &status, NULL, &err) == IS_OK);
    check_common(m, point, &rec, out, status, label);
    const char *got = is_model_stop_oscillator.outputs[STOP_REGIME]
                          .categories[(int)out[STOP_REGIME]];
    CHECK(strcmp(got, regime) == 0, "%s: regime %s, expected %s", label, got, regime);
    size_t last = rec.samples - 1;
    CHECK(rec.ek[rec.events - 1] == event_kind(m, "end") && rec.et[rec.events - 1] == rec.t[last],
          "%s: the last event is no end at the last sample", label);
    /* the counts and the last rebound are the events' */
    CHECK(count_events(m, &rec, "rebound") == out[STOP_REBOUNDS] &&
              count_events(m, &rec, "zeno_reset") == out[STOP_ZENO_RESETS] &&
              count_events(m, &rec, "contact_start") == out[STOP_CONTACT_PHASES],
          "%s: %zu rebounds, %zu resets, %zu contacts traced; eval %g %g %g", label,
          count_events(m, &rec, "rebound"), count_events(m, &rec, "zeno_reset"),
          count_events(m, &rec, "contact_start"), out[STOP_REBOUNDS], out[STOP_ZENO_RESETS],
          out[STOP_CONTACT_PHASES]);
    if (out[STOP_REBOUNDS] > 0) {
        int rebound = event_kind(m, "rebound");
        size_t e = rec.events;
        while (rec.ek[--e] != rebound)
            ;
        /* the arrival: the sample at that time with mass one moving in */
        double v_in = NAN;
        for (size_t i = 0; i < rec.samples; i++)
            if (rec.t[i] == rec.et[e] && S(&rec, i, c_v1) > 0.0)
                v_in = S(&rec, i, c_v1);
        CHECK(rec.et[e] == out[STOP_T_LAST_REBOUND] && v_in == out[STOP_V_LAST_REBOUND],
              "%s: last rebound at %.17g with %.17g, eval %.17g with %.17g", label, rec.et[e],
              v_in, out[STOP_T_LAST_REBOUND], out[STOP_V_LAST_REBOUND]);
    }
    /* the final energy is eval's, bit for bit; it never rises beyond rounding; mass one
     * never beyond the stop */
    if (status == IS_POINT_DONE)
        CHECK(S(&rec, last, c_e) == out[STOP_ENERGY], "%s: final energy %.17g, eval %.17g",
              label, S(&rec, last, c_e), out[STOP_ENERGY]);
    double e0 = S(&rec, 0, c_e), top = e0, s = point[STOP_S];
    /* rounding, or CVODE's tolerance (the model allows 100 rtol a segment) */
    double step_allowance = point[STOP_INTEGRATOR] == 1.0 ? 100.0 * point[STOP_RTOL] * e0
                                                          : 2048 * DBL_EPSILON * e0;
    double allowance = point[STOP_INTEGRATOR] == 1.0 ? 1e4 * point[STOP_RTOL] : 1e-9;
    size_t rises = 0, beyond = 0, first_rise = 0;
    for (size_t i = 1; i < rec.samples; i++) {
        if (!(S(&rec, i, c_e) <= S(&rec, i - 1, c_e) + step_allowance) && !rises++)
            first_rise = i;
        top = fmax(top, S(&rec, i, c_e));
        beyond += !(S(&rec, i, c_x1) <= s * (1.0 + 1e-9));
    }
    CHECK(rises == 0 && top <= e0 * (1.0 + allowance) && beyond == 0,
          "%s: the energy rises %zu times (first at sample %zu, t %.17g: %.17g after %.17g), "
          "peaks at %.17g of %.17g; %zu samples beyond the stop",
          label, rises, first_rise, rec.t[first_rise], S(&rec, first_rise, c_e),
          first_rise ? S(&rec, first_rise - 1, c_e) : 0.0, top, e0, beyond);
    /* sampled at the resolution: no gap longer than the step */
    double dt = 2.0 * M_PI / (sqrt(point[STOP_K] + 2.0 * point[STOP_K12]) * resolution);
    size_t gaps = 0;
    for (size_t i = 1; i < rec.samples; i++)
        gaps += rec.t[i] - rec.t[i - 1] > dt * (1.0 + 1e-9);
    CHECK(gaps == 0, "%s: %zu gaps longer than the sampling step %g", label, gaps, dt);
    recorded_free(&rec);
}

static void test_stop(void)
{
    static const char *const defaults[] = {NULL};
    static const char *const free_run[] = {"v1_0", "0.1", NULL};
    static const char *const zeno[] = {"x1_0", "1", "v1_0", "-0.01", "x2_0", "2.5",
                                       "v2_0", "-0.1", NULL};
    static const char *const approaching[] = {"k12", "1.5675620281146636", "epsilon", "0.05",
                                              "v1_0", "0", "x2_0", "3", "t_end", "400", NULL};
    static const char *const coarse[] = {"k12", "0.5", "epsilon", "0.3", "v1_0", "8",
                                         "t_end", "400", "s", "2.5", "k", "4", NULL};
    static const char *const cvode[] = {"integrator", "cvode", NULL};
    static const char *const budget[] = {"max_rebounds", "2", NULL};
    double point[STOP_PARAM_COUNT];
    stop_point(point, defaults);
    check_stop(point, "defaults", "impacting", 32);
    stop_point(point, free_run);
    check_stop(point, "free", "free", 32);
    stop_point(point, zeno);
    check_stop(point, "zeno", "impacting", 32);
    stop_point(point, approaching); /* periodic, approached: the certificate */
    check_stop(point, "approaching", "periodic", 16);
    stop_point(point, coarse);
    check_stop(point, "scaled units", "impacting", 4);
    stop_point(point, cvode);
    check_stop(point, "cvode", "impacting", 32);
    stop_point(point, budget);
    check_stop(point, "budget", "failed", 32);
}

/* Random points: the trace's evaluation is eval's, bit for bit, and the last sample's
 * energy is eval's energy. */
static void test_stop_random(void)
{
    const is_model *m = &is_model_stop_oscillator;
    int c_e = channel(m, "energy");
    uint64_t state = 7;
    int tried = 0, differing = 0, wrong_end = 0;
    for (int i = 0; i < 60; i++) {
        double point[STOP_PARAM_COUNT], out[STOP_OUTPUT_COUNT], expected[STOP_OUTPUT_COUNT];
        static const char *const none[] = {NULL};
        stop_point(point, none);
        point[STOP_K] = pow(10.0, -1.0 + 2.0 * uniform(&state));
        point[STOP_K12] = point[STOP_K] * pow(10.0, -1.0 + 2.0 * uniform(&state));
        point[STOP_EPSILON] = 0.05 + 0.9 * uniform(&state);
        point[STOP_X1] = point[STOP_S] * (2.0 * uniform(&state) - 1.0);
        point[STOP_X2] = 3.0 * point[STOP_S] * (2.0 * uniform(&state) - 1.0);
        point[STOP_V1] = 2.0 * (2.0 * uniform(&state) - 1.0);
        point[STOP_V2] = 2.0 * (2.0 * uniform(&state) - 1.0);
        point[STOP_T_END] = 50.0;
        point[STOP_INTEGRATOR] = i % 5 == 4; /* cvode now and then */
        is_error err;
        if (is_model_stop_oscillator.validate(point, &err) != IS_OK)
            continue;
        tried++;
        recorded rec = {0};
        uint8_t status, expected_status;
        CU_ASSERT_FATAL(trace_point(m, point, NULL, &rec, out, &status, NULL, &err) == IS_OK);
        eval_point(m, point, expected, &expected_status);
        if (status != expected_status || !same_bits(out, expected, STOP_OUTPUT_COUNT))
            differing++;
        if (status == IS_POINT_DONE && S(&rec, rec.samples - 1, c_e) != out[STOP_ENERGY])
            wrong_end++;
        recorded_free(&rec);
    }
    CHECK(tried >= 50 && differing == 0 && wrong_end == 0,
          "%d random points: %d differ from eval, %d whose last energy is not eval's", tried,
          differing, wrong_end);
}

/* A free run keeps the point's own energy; a Zeno sequence holds mass one at the stop. */
static void test_stop_free_and_zeno(void)
{
    const is_model *m = &is_model_stop_oscillator;
    static const char *const free_run[] = {"v1_0", "0.1", "t_end", "50", NULL};
    static const char *const zeno[] = {"x1_0", "1", "v1_0", "-0.01", "x2_0", "2.5",
                                       "v2_0", "-0.1", NULL};
    double point[STOP_PARAM_COUNT], out[STOP_OUTPUT_COUNT];
    recorded rec = {0};
    uint8_t status;
    is_error err;
    stop_point(point, free_run);
    CU_ASSERT_FATAL(trace_point(m, point, NULL, &rec, out, &status, NULL, &err) == IS_OK);
    int c_e = channel(m, "energy"), c_x1 = channel(m, "x1"), c_contact = channel(m, "contact");
    size_t changed = 0;
    for (size_t i = 0; i < rec.samples; i++)
        changed += S(&rec, i, c_e) != out[STOP_ENERGY];
    CHECK(changed == 0 && rec.t[rec.samples - 1] == 50.0 * (1.0 / sqrt(point[STOP_K])) *
                                                       sqrt(point[STOP_K]) &&
              rec.events == 1,
          "free: %zu samples off the energy %.17g, ends at %.17g, %zu events", changed,
          out[STOP_ENERGY], rec.t[rec.samples - 1], rec.events);
    recorded_free(&rec);
    stop_point(point, zeno);
    CU_ASSERT_FATAL(trace_point(m, point, NULL, &rec, out, &status, NULL, &err) == IS_OK);
    int reset = event_kind(m, "zeno_reset");
    size_t held = 0, tail = 0;
    for (size_t e = 0; e < rec.events; e++)
        if (rec.ek[e] == reset) {
            held += E(&rec, e, c_contact) == 1.0 && E(&rec, e, c_x1) == point[STOP_S];
            tail++;
        }
    CHECK(tail >= 1 && held == tail, "zeno: %zu resets, %zu with mass one held at the stop",
          tail, held);
    recorded_free(&rec);
}

/* On a 2-phase periodic orbit: two clean cycles, then periodic_detected, no rebound. */
static void test_stop_periodic(void)
{
    const is_model *m = &is_model_stop_oscillator;
    stop_system sys;
    stop_system_init(&sys, 1.0, 3.0, 1.0, 0.8);
    stop_orbit orbits[STOP_MAX_ORBITS];
    int n = stop_find_orbits(&sys, 12.0, 3, orbits);
    CU_ASSERT_FATAL(n >= 1);
    char v[64], x2[64], t_end[64];
    snprintf(v, sizeof v, "%.17g", orbits[0].v);
    snprintf(x2, sizeof x2, "%.17g", sys.x2t);
    snprintf(t_end, sizeof t_end, "%.17g", 10.0 * (orbits[0].t_cod + orbits[0].t_cd));
    const char *const settings[] = {"k12", "3", "x1_0", "1", "v1_0", "0", "x2_0", x2,
                                    "v2_0", v, "t_end", t_end, NULL};
    double point[STOP_PARAM_COUNT];
    stop_point(point, settings);
    check_stop(point, "periodic", "periodic", 32);
    double out[STOP_OUTPUT_COUNT];
    recorded rec = {0};
    uint8_t status;
    is_error err;
    CU_ASSERT_FATAL(trace_point(m, point, NULL, &rec, out, &status, NULL, &err) == IS_OK);
    CHECK(count_events(m, &rec, "periodic_detected") == 1 &&
              count_events(m, &rec, "contact_end") == 2 && count_events(m, &rec, "rebound") == 0,
          "periodic: %zu detections, %zu contact ends, %zu rebounds",
          count_events(m, &rec, "periodic_detected"), count_events(m, &rec, "contact_end"),
          count_events(m, &rec, "rebound"));
    recorded_free(&rec);
}

/* --- every model: a failing sink, the stop flag ----------------------------------------- */

static void model_point(const is_model *m, double *point)
{
    for (size_t p = 0; p < m->param_count; p++)
        point[p] = m->params[p].default_value;
    if (m == &is_model_chatter) {
        point[CHATTER_RHO] = 0.3;
        point[CHATTER_GAMMA] = 0.1;
    }
}

static void test_sink_failure_and_stop(void)
{
    const is_model *models[] = {&is_model_collision, &is_model_chatter,
                                &is_model_stop_oscillator};
    for (size_t k = 0; k < 3; k++) {
        const is_model *m = models[k];
        double point[64], out[64];
        model_point(m, point);
        for (size_t fail_at = 1; fail_at <= 3; fail_at += 2) {
            recorded rec = {.fail_at = fail_at};
            uint8_t status;
            is_error err;
            is_error_clear(&err);
            is_code rc = trace_point(m, point, NULL, &rec, out, &status, NULL, &err);
            CHECK(rc == IS_NOMEM && strstr(err.message, "the test's sink fails") &&
                      status == IS_POINT_PENDING,
                  "%s, sink failing at call %zu: code %d status %d '%s'", m->name, fail_at, rc,
                  status, err.message);
            recorded_free(&rec);
        }
        volatile sig_atomic_t stop = 1;
        recorded rec = {0};
        uint8_t status = IS_POINT_DONE;
        is_error err;
        is_code rc = trace_point(m, point, NULL, &rec, out, &status, &stop, &err);
        CHECK(rc == IS_OK && status == IS_POINT_PENDING,
              "%s, stop flag set: code %d status %d", m->name, rc, status);
        recorded_free(&rec);
    }
}

/* --- the trace file --------------------------------------------------------------------- */

static void test_file_checks(void)
{
    char dir[] = "/tmp/impactsweep-trace-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    char path[256], link_path[256];
    snprintf(path, sizeof path, "%s/trace.h5", dir);
    snprintf(link_path, sizeof link_path, "%s/link.h5", dir);
    is_error err;
    CHECK(is_trace_file_check(path, 0, &err) == IS_OK, "a new path is refused: %s",
          err.message);
    const is_model *m = &is_model_collision;
    double point[COLLISION_PARAM_COUNT], out[COLLISION_OUTPUT_COUNT];
    model_point(m, point);
    recorded rec = {0};
    uint8_t status;
    CU_ASSERT_FATAL(trace_point(m, point, NULL, &rec, out, &status, NULL, &err) == IS_OK);
    is_trace_data data = {.model = m, .point = point, .options = NULL, .outputs = out,
                          .status = status, .sample_count = rec.samples, .sample_t = rec.t,
                          .samples = rec.v, .event_count = rec.events, .event_t = rec.et,
                          .event_kind = rec.ek, .event_values = rec.ev};
    CHECK(is_trace_file_write(path, 0, &data, &err) == IS_OK, "write: %s", err.message);
    is_code rc = is_trace_file_write(path, 0, &data, &err);
    CHECK(rc == IS_EXISTS && is_code_exit_status(rc) == 2, "an existing file: code %d", rc);
    CHECK(is_trace_file_write(path, 1, &data, &err) == IS_OK, "--overwrite: %s", err.message);
    CHECK(symlink(path, link_path) == 0, "symlink");
    rc = is_trace_file_check(link_path, 1, &err);
    CHECK(rc == IS_USAGE, "a symbolic link is replaced: code %d", rc);
    rc = is_trace_file_check(dir, 1, &err);
    CHECK(rc == IS_USAGE, "a directory is replaced: code %d", rc);
    char partial[300];
    snprintf(partial, sizeof partial, "%s.partial", path);
    CHECK(access(partial, F_OK) != 0, "%s left behind", partial);
    unlink(link_path);
    unlink(path);
    rmdir(dir);
    recorded_free(&rec);
}

void suite_trace(void)
{
    CU_pSuite suite = CU_add_suite("trace", NULL, NULL);
    CU_add_test(suite, "the trace tables of every model", test_tables);
    CU_add_test(suite, "collision: eval's result, the force law, every outcome", test_collision);
    CU_add_test(suite, "collision: random points of every law", test_collision_random);
    CU_add_test(suite, "collision: the force-indentation loop", test_collision_hysteresis_loop);
    CU_add_test(suite, "chatter: drops make up the point, ICC CC PCC flat, the reference",
                test_chatter);
    CU_add_test(suite, "chatter: a drop beyond the point's samples", test_chatter_drop_range);
    CU_add_test(suite, "stop oscillator: eval's result, energy, every regime", test_stop);
    CU_add_test(suite, "stop oscillator: random points", test_stop_random);
    CU_add_test(suite, "stop oscillator: free runs and Zeno tails", test_stop_free_and_zeno);
    CU_add_test(suite, "stop oscillator: a periodic orbit", test_stop_periodic);
    CU_add_test(suite, "a failing sink and the stop flag", test_sink_failure_and_stop);
    CU_add_test(suite, "the trace file: existing outputs, links, directories",
                test_file_checks);
}
