/* hybrid.h: an integrator of hybrid systems in lanes, for the models and for plug-ins
 * (installed as <impactsweep/hybrid.h>; header only, so a plug-in compiles it with its own
 * flags and needs nothing of the engine's at run time).
 *
 * A model describes its system with a const is_hybrid_system: a vector field (or a
 * closed-form flow), event functions with directions and kinds, and what happens at
 * events (resets, records, the end of a run), all written for a vector of lanes with
 * lanes.h; and, per point, a start and a finish in plain C. is_hybrid_run then runs a
 * batch of points in lanes: IS_HYBRID_BLOCKS vectors of LV_WIDTH lanes stepped side by
 * side, each lane a point with its own step size, refilled from the batch as points end.
 *
 *   - Steps: Dormand-Prince 5(4) with the error of the 4th-order solution controlled per
 *     lane (RMS over the state of error / (atol + rtol max(|y0|, |y1|))), or the model's
 *     closed-form flow in steps of at most h_max. A system may ask for Dormand-Prince
 *     8(5,3) instead (pair = IS_HYBRID_DOP853, hybrid_dop853.h: Hairer's DOP853, 12
 *     evaluations a step, its error estimate and a continuous extension of order 7 for the
 *     events): fewer evaluations at tight tolerances (collision's: from about 1e-8 down),
 *     where the field is smooth between events (next to a point where it is only
 *     |u|^p, 1 < p < 2, its error estimate is less reliable than DOPRI5's).
 *   - Events: after every trial step the event functions are evaluated at its end; a lane
 *     where one crossed in its direction locates the first crossing on the step's
 *     continuous extension (DOPRI5's dense output of order 4, or the flow itself) by the
 *     Illinois method on min over the crossing events of side * g, for all such lanes of
 *     the vector at once; events crossed at the located time (within the tolerance) happen
 *     together. A start on an event (g = 0) counts as on the side it is crossed from.
 *   - Grazes (hybrid_events.h): an event on its side at both ends of an accepted step may
 *     have dipped through zero and back inside it. Every step is checked, in both modes,
 *     with rates or without: an estimate of side * g inside the step (the Hermite cubic of
 *     the values and rates; without rates the parabola through the ends and the step's
 *     middle, one more evaluation a step) flags a minimum nearer zero than its depth below
 *     the ends; there Brent's minimiser finds the true minimum on the continuous extension,
 *     and a minimum at or below zero is a crossing, located as above. A dip below the
 *     rounding of g is not seen; rates that are NaN skip the check where they are. An IS_HYBRID_OBSERVE event is reported there and the
 *     step goes on; the others end the lane's next step exactly there (the step is redone
 *     to that length: the state at an event is a step end, as accurate as any) and are
 *     reported at its end. IS_HYBRID_KINK events are where the field is not smooth: a
 *     step never straddles one, so the error estimates stay honest (a step across one was
 *     rejected and cut back for a dozen steps); with a field whose rates are given, a
 *     kink the step would cross by the first-order prediction from its value and rate
 *     is landed on at once, without the rejected trial. A landing that ends further from
 *     the event's root than 1e-6 of the step is corrected and the step taken again:
 *     by Newton's method with the rates, by secants without (rates only make it cheaper:
 *     the location follows the asked tolerance either way); never by more than the step,
 *     nor from a start already past the event (a tangent at rounding level). A step to
 *     an event is searched like any other for the other events (crossings and grazes): one
 *     that crossed inside it (e.g. inside a kink's predicted landing) is landed on instead,
 *     at its own time, and the first event is found again after it; one within 1e-6 of
 *     the step from its end, as near as the landing itself is corrected, happens together
 *     with the event landed on. So no event is reported later than where it crossed.
 *   - Resets: on_event may change the state (an IS_HYBRID_RESET event returns the lane to
 *     the side it came from, as an impact does) and the lane's records, and end lanes.
 *   - Accumulation: at the arrivals of IS_HYBRID_RESET events the integrator watches the
 *     intervals between them. When zeno_events intervals in a row have shrunk and the
 *     geometric rest of the sequence, interval q / (1 - q) with q the last ratio, is
 *     shorter than zeno_tail, or an interval between arrivals that share an event is
 *     below rounding (two stops' impacts a rounding apart are no sequence), the events
 *     accumulate (Zeno) at t* = t + that rest. Rounding stops a sequence from shrinking
 *     long before its rest is short (the events' times are noisy at sqrt(rounding of
 *     g / g'')): after a descent of 8 new smallest intervals to 1e-3 of its first, an interval that does
 *     not shrink further accumulates at once (t* = t), as does (with zeno_tail set) a
 *     reset that leaves the event's rate heading back through it (the crossing was
 *     rounding: the lane was leaving). When an event's rate after its reset is at most
 *     stick_speed (the rates given), the lane sticks at t* = t. Either way on_accumulate
 *     gives the state at t* (e.g. at rest on a constraint, in a mode whose field holds it
 *     there, left by another event); without it the run ends with IS_HYBRID_ZENO.
 *   - Invariants (optional: is_hybrid_system.invariants): what must hold of the state in
 *     every mode (the ball not below the table, a penetration within a bound, a speed
 *     within the energy's bound), v[k] >= -invariant_tolerance[k], checked at the start,
 *     at every accepted step's end and at every event's arrival (after its reset and any
 *     accumulation). A violation ends the lane with IS_HYBRID_VIOLATED, is_hybrid_end
 *     naming the invariant (invariant, reason) and the time and state where it was found:
 *     a model makes it a failed point (IS_POINT_FAILED_CHECK) with that reason and time
 *     among its outputs, never a done one.
 *   - Lyapunov exponents (optional: is_hybrid_system.lyapunov, hybrid_lyapunov.h): tangent
 *     vectors carried by the variational equations (field) or the flow's derivative,
 *     mapped by saltation matrices at events, renormalised by Benettin's method.
 *   - Ends: the model's (on_event, on_accumulate), the horizon t_end, the budgets
 *     max_steps (every trial step counts) and max_events (by default 1e8 and 1e6: a
 *     point never grinds for ever), a non-finite state or error, a step below rounding, an
 *     invariant broken; then finish gets the point's end, with its reason in words. The stop flag is polled
 *     every IS_HYBRID_POLL rounds: points not finished then are not finished at all.
 *
 * Determinism: every lane operation is elementwise IEEE arithmetic (build with
 * -ffp-contract=off), nothing is reduced across lanes, and a lane's decisions depend on
 * its own values alone, so a point's result is the same bits in any lane, block, batch,
 * order and build (SSE2, AVX2, AVX-512): a run of one point (a trace) gives the bits of
 * the batch. Memory: is_hybrid_run allocates its blocks once per call (a few kB), nothing
 * per step. Callbacks run on vectors of lanes that may hold idle lanes (copies of a
 * point): they must not fail on any lane, and what they compute there is discarded. */
#ifndef IMPACTSWEEP_HYBRID_H
#define IMPACTSWEEP_HYBRID_H

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lanes_math.h"

#define IS_HYBRID_MAX_DIM 8     /* state components */
#define IS_HYBRID_MAX_EVENTS 8  /* event functions */
#define IS_HYBRID_MAX_PARAMS 24 /* per-lane parameters (is_hybrid_lanes.par) */
#define IS_HYBRID_MAX_RECORDS 24
#define IS_HYBRID_MAX_AUX 4     /* by-products of the field (is_hybrid_lanes.aux) */
#define IS_HYBRID_BLOCKS 2 /* vectors stepped side by side: one step is a chain of
                              dependent stages, and a second vector's fills its waits */
#define IS_HYBRID_LANES (IS_HYBRID_BLOCKS * LV_WIDTH)
#define IS_HYBRID_POLL 256 /* rounds between two looks at the stop flag */
#define IS_HYBRID_RING 32  /* Poincare sections kept (is_hybrid_end.section; more, and
                              impact sections: the recorders, hybrid_sections.h) */
#define IS_HYBRID_MAX_INVARIANTS 8 /* invariants (is_hybrid_system.invariants) */
#define IS_HYBRID_DEFAULT_EVENTS 1e6 /* max_events when the model sets none */
#define IS_HYBRID_DEFAULT_STEPS 1e8  /* max_steps when the model sets none */

/* Event kinds (is_hybrid_system.kind): how the integrator treats a located crossing. */
enum {
    IS_HYBRID_LAND = 0,    /* the lane's step ends there; the event passes to its far side */
    IS_HYBRID_OBSERVE = 1, /* reported on the dense output, the step goes on (a maximum to
                              record: a time error enters only squared) */
    IS_HYBRID_KINK = 2,    /* the field is not smooth there: land, and report it */
    IS_HYBRID_RESET = 3,   /* land; on_event resets the state so that the lane returns to
                              the side it came from (an impact; or a switch of mode that
                              sets the event's function off); watched for accumulation
                              (see watch) */
    IS_HYBRID_ROUGH = 4    /* a kink where the field's derivatives are unbounded on both
                              sides (|u|^p, 1 < p < 2, at u = 0): the error estimates of the
                              steps that end and begin there are taken rough_penalty times
                              larger, as they come out too small there */
};

/* How a point's run ended (is_hybrid_end.status). */
typedef enum {
    IS_HYBRID_ENDED = 0,     /* on_event or on_accumulate ended it */
    IS_HYBRID_HORIZON = 1,   /* t reached t_end */
    IS_HYBRID_BUDGET = 2,    /* max_steps or max_events used up */
    IS_HYBRID_NONFINITE = 3, /* a state or an error estimate was not finite */
    IS_HYBRID_UNDERFLOW = 4, /* the step fell below the rounding of t */
    IS_HYBRID_ZENO = 5,      /* events accumulated and the model has no on_accumulate */
    IS_HYBRID_VIOLATED = 6   /* an invariant failed (is_hybrid_end.invariant) */
} is_hybrid_status;

/* The Runge-Kutta pair of field mode (is_hybrid_system.pair). */
enum {
    IS_HYBRID_DOPRI5 = 0, /* Dormand-Prince 5(4), dense output of order 4 */
    IS_HYBRID_DOP853 = 1  /* Dormand-Prince 8(5,3), dense output of order 7 (not with
                             `lyapunov`: the tangents are stepped with DOPRI5's stages,
                             so such a system runs DOPRI5) */
};

#include "hybrid_sections.h" /* section recorders: the last N samples, their period */

/* A point's start, filled in by the model's start (the integrator clears it first:
 * zeros, no budgets, no accumulation rules). */
typedef struct is_hybrid_start {
    double t, t_end;                     /* the start and the horizon */
    double y[IS_HYBRID_MAX_DIM];         /* the state at t */
    double par[IS_HYBRID_MAX_PARAMS];    /* the lane's parameters, read by the callbacks */
    double rec[IS_HYBRID_MAX_RECORDS];   /* the lane's records, the callbacks' to keep */
    double h;                            /* the first step (0: 1e-2 sqrt(rtol)) */
    double h_max;                        /* the longest step (0: none; flow mode needs it) */
    double rtol, atol;                   /* local error tolerances (field mode) */
    double max_steps, max_events;        /* budgets (0: IS_HYBRID_DEFAULT_STEPS, _EVENTS;
                                            a negative value: none) */
    double zeno_tail;                    /* accumulate when the rest is shorter (0: never) */
    double zeno_events;                  /* shrinking intervals in a row first (0: 3) */
    double stick_speed;                  /* stick when a reset leaves a rate this slow */
    int rough_start;                     /* the start is a rough point (IS_HYBRID_ROUGH) */
    double section_period;               /* > 0 (and the system's `sections` set): the state
                                            is recorded at t + k times this,
                                            k = 1, 2, ... (steps end there exactly), the
                                            last IS_HYBRID_RING of them kept: a forced
                                            system's stroboscopic Poincare section */
    int slot;                            /* set by the integrator: the lane slot the point
                                            runs in (for storage of the model's own, per
                                            slot: is_hybrid_lanes.slot) */
    int section_samples[IS_HYBRID_MAX_RECORDERS]; /* recorder k's N for this point (0: its
                                            capacity; above it: the capacity) */
    double lyapunov_interval;            /* the system's `lyapunov` set: the tangents are
                                            renormalised every this much time (0: every
                                            step; hybrid_lyapunov.h) */
    double lyapunov_transient;           /* and their growth counted from t + this */
} is_hybrid_start;

/* A point's end, for the model's finish. */
typedef struct is_hybrid_end {
    is_hybrid_status status;
    double t;
    double y[IS_HYBRID_MAX_DIM];
    double rec[IS_HYBRID_MAX_RECORDS];
    int64_t steps, rejected, events, accumulations;
    /* the sections (section_period): how many were recorded, and the last IS_HYBRID_RING,
     * section k (from 0) at [k % IS_HYBRID_RING]: the state there, and the events and
     * accumulations counted up to it (a section within an accumulation's rest, which is
     * skipped in time, holds the state after it) */
    int64_t sections;
    double section[IS_HYBRID_RING][IS_HYBRID_MAX_DIM];
    int64_t section_events[IS_HYBRID_RING], section_accumulations[IS_HYBRID_RING];
    /* why the run ended, in words ("" for IS_HYBRID_ENDED and IS_HYBRID_HORIZON): the
     * budget used up, the invariant that failed (its name), ... (static text) */
    const char *reason;
    /* IS_HYBRID_VIOLATED: the invariant that failed (-1: none) and its value there (at t,
     * y: the step's end or the event's state after its reset where it was found) */
    int invariant;
    double invariant_value;
    /* the recorders' sections (hybrid_sections.h; n = 0: no recorder k) */
    is_hybrid_section recorded[IS_HYBRID_MAX_RECORDERS];
    /* the system's `lyapunov` set: the largest exponents (as many as its `vectors`; the
     * rest NaN), in 1 / (the time's unit), and the convergence measure of the largest
     * (hybrid_lyapunov.h); NaN without */
    double lyapunov[IS_HYBRID_MAX_DIM], lyapunov_error;
    /* why the exponents are NaN, in words ("" where they are not; static text): the run
     * ended within the transient, events fired together in a corner (hybrid_lyapunov.h) */
    const char *lyapunov_reason;
} is_hybrid_end;

/* What a vector callback sees of its lanes: the run's context, the lanes' parameters and
 * records, the side each event is on: -1, 1, or 0 (not known yet); in on_event the side
 * before it; in event_values at an arrival the fired events' sides already turned (the
 * side the lane is on now; an IS_HYBRID_RESET event's the side it returned to); and aux: what the field chooses to leave there of its last evaluation, which
 * event_values may use when it is given dydt (then dydt is that evaluation's, at the same
 * t and y: e.g. powers of the state that the events need too). */
typedef struct is_hybrid_lanes {
    lv_double par[IS_HYBRID_MAX_PARAMS];
    lv_double rec[IS_HYBRID_MAX_RECORDS];
    lv_double side[IS_HYBRID_MAX_EVENTS];
    lv_double aux[IS_HYBRID_MAX_AUX];
    void *ctx;
    int slot;                   /* lane l is the run's lane slot + l (< IS_HYBRID_LANES) */
    size_t point[LV_WIDTH];     /* the point each lane holds (meaningless where idle) */
} is_hybrid_lanes;

typedef struct is_hybrid_system {
    int dimension, events;                     /* <= IS_HYBRID_MAX_DIM, _MAX_EVENTS */
    signed char direction[IS_HYBRID_MAX_EVENTS]; /* -1 falling, 1 rising, 0 either */
    unsigned char kind[IS_HYBRID_MAX_EVENTS];  /* IS_HYBRID_LAND, _OBSERVE, _KINK, _RESET */
    /* how closely an event's time is located, as a share of the step (0: 1e-9 with a
     * field, 4 DBL_EPSILON with a flow) */
    double locate_tolerance[IS_HYBRID_MAX_EVENTS];
    double rough_penalty; /* IS_HYBRID_ROUGH: the error estimates' factor there (0: 10) */
    unsigned watch;       /* the IS_HYBRID_RESET events whose times are watched for
                             accumulation, a bit each (0: every IS_HYBRID_RESET event) */
    int sections;         /* Poincare sections are recorded (is_hybrid_start.section_period):
                             0 spares a system without them their bookkeeping */
    /* optional: section recorders (hybrid_sections.h), stroboscopic (with `sections`)
     * or at events, each keeping a point's last N samples */
    int recorders;
    is_hybrid_recorder recorder[IS_HYBRID_MAX_RECORDERS];
    /* y' = f(t, y) (NULL: flow mode) */
    void (*field)(is_hybrid_lanes *b, lv_double t, const lv_double *y, lv_double *dydt);
    /* the state at t0 + dt of the solution through (t0, y0) (NULL: field mode) */
    void (*flow)(const is_hybrid_lanes *b, lv_double t0, const lv_double *y0, lv_double dt,
                 lv_double *y);
    /* g(t, y) for every event; dydt = f(t, y) in field mode (free: the step's last
     * stage), NULL in flow mode; and, where dg is not NULL (only if `rates`), the rates
     * dg/dt along the solution (NaN where not known): the grazing checks in flow mode, the
     * stick rule, the Newton corrections of landings */
    void (*event_values)(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                         const lv_double *dydt, lv_double *g, lv_double *dg);
    int rates; /* event_values gives the rates */
    /* at events: fired[e] holds the lanes where event e happened at (t, y); may change y
     * and b->rec; returns the lanes whose run is over */
    lv_mask (*on_event)(is_hybrid_lanes *b, const lv_mask *fired, lv_double t, lv_double *y);
    /* optional: the state at t_star after events accumulated (y holds the state after the
     * last reset at t); returns the lanes whose run is over */
    lv_mask (*on_accumulate)(is_hybrid_lanes *b, lv_mask lanes, lv_double t,
                             lv_double t_star, lv_double *y);
    /* optional: a longest step from (t, y) (e.g. one that provably reaches no event, from
     * a bound of the solution's acceleration) */
    lv_double (*step_limit)(const is_hybrid_lanes *b, lv_double t, const lv_double *y);
    /* per point, plain C: start returns 1 when the point is to be run, 0 when the model
     * has finished it without (an invalid point, say); finish takes its end */
    int (*start)(void *ctx, size_t point, is_hybrid_start *s);
    void (*finish)(void *ctx, size_t point, const is_hybrid_end *e);
    /* optional, for traces: every accepted step's end and every event's state (before
     * on_event, and after a reset), unless own_event_samples: then on_event samples the
     * events' states itself (a model that reports a state other than the event's) */
    void (*sample)(void *ctx, size_t point, double t, const double *y);
    int own_event_samples;
    /* optional: invariants, what must hold of the state in every mode (the ball not below
     * the table, a penetration within a bound): invariant_values gives v[k] for k <
     * invariants, and v[k] >= -invariant_tolerance[k] must hold (NaN fails), checked at
     * the start, at every accepted step's end and at every event's arrival (after its
     * reset and any accumulation); where one fails the lane ends IS_HYBRID_VIOLATED, the
     * first failing k in is_hybrid_end.invariant, invariant_name[k] its reason */
    int invariants;
    const char *invariant_name[IS_HYBRID_MAX_INVARIANTS];
    double invariant_tolerance[IS_HYBRID_MAX_INVARIANTS];
    void (*invariant_values)(const is_hybrid_lanes *b, lv_double t, const lv_double *y,
                             lv_double *v);
    /* optional, for the trace made without the model's code (IS_HYBRID_PLUGIN,
     * hybrid_trace.h): the state's components' names and units (NULL: y0, y1, ... in
     * "1"), the events' names (NULL: the kind and index, "reset_0"), the time's unit */
    const char *state_name[IS_HYBRID_MAX_DIM], *state_unit[IS_HYBRID_MAX_DIM];
    const char *event_name[IS_HYBRID_MAX_EVENTS];
    const char *time_unit;
    /* optional: Lyapunov exponents (the tangents' derivatives: hybrid_lyapunov.h; NULL:
     * none, and no cost) */
    const struct is_hybrid_lyapunov *lyapunov;
    /* optional: the pair of field mode, IS_HYBRID_DOPRI5 (0) or IS_HYBRID_DOP853 */
    int pair;
} is_hybrid_system;

/* Runs the points 0 .. count-1 (the model's start maps them to its own). Returns 0, 1
 * when the stop flag ended the run (points not finished stay unfinished: no finish), -1
 * when there was no memory for the lanes (no point was run). `trace` calls sample. Inside
 * a trace made by IS_HYBRID_PLUGIN (hybrid_trace.h) the run writes every sample and event
 * into the engine's sink instead, whatever `trace` says.
 * It is inlined where it is called: call it with the address of a const system, in one
 * place per system (a function of the model's), so that the system's sizes, kinds and
 * callbacks are constants there (loops unrolled, callbacks inlined). */
static inline __attribute__((always_inline)) int is_hybrid_run(const is_hybrid_system *sys,
                                                               void *ctx, size_t count,
                                                               const volatile sig_atomic_t *stop,
                                                               int trace);

/* The period of the final motion from the sections: the smallest p <= max_period (and
 * <= IS_HYBRID_RING / 2, with 2p sections recorded) such that each of the last p sections
 * equals the one p before it, component i within tolerance[i]; 0 if there is none. */
static inline int is_hybrid_period(const is_hybrid_end *e, int dimension, int max_period,
                                   const double *tolerance);

/* Section k back from the last (0: the last), as an index into is_hybrid_end.section. */
static inline int is_hybrid_section_back(const is_hybrid_end *e, int back)
{
    return (int)((e->sections - 1 - back) % IS_HYBRID_RING);
}

#include "hybrid_impl.h"

#endif
