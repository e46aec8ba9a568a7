/* stop_oscillator.h: two coupled unit masses, mass one limited by a fixed stop at x1 = s
 * (MODELS.md sec. 3): event-driven simulation with the exact flows of the coupled
 * oscillator (COD) and of the contact dynamics (CD), rebounds, Zeno sequences ended by the
 * paper's orbit reset, and the 2-phase periodic hybrid orbits. Internal pieces the tests
 * check on their own are declared here too. */
#ifndef IMPACTSWEEP_STOP_OSCILLATOR_H
#define IMPACTSWEEP_STOP_OSCILLATOR_H

#include <signal.h>
#include <stdint.h>

#include "../../core/contract/model.h"
#include "../solver_status.h"

extern const is_model is_model_stop_oscillator;

/* Parameter indices, in the order of the model's table. */
enum {
    STOP_K, STOP_K12, STOP_S, STOP_EPSILON, STOP_X1, STOP_V1, STOP_X2, STOP_V2, STOP_T_END,
    STOP_MAX_REBOUNDS, STOP_INTEGRATOR, STOP_RTOL, STOP_ZENO_TAIL, STOP_ORBIT_T_MAX,
    STOP_FRAGILITY, STOP_SECTIONS, STOP_PARAM_COUNT
};

/* Output indices, in the order of the model's table. */
enum {
    STOP_REBOUNDS, STOP_ZENO_RESETS, STOP_CONTACT_PHASES, STOP_ENERGY, STOP_ENERGY_LOST,
    STOP_T_LAST_REBOUND, STOP_REGIME, STOP_ORBITS, STOP_ORBIT_V, STOP_ORBIT_T_COD,
    STOP_V_LAST_REBOUND, STOP_ENERGY_FALL, STOP_ENERGY_FALL_Q4, STOP_STICK_RATIO,
    STOP_LATE_STICKING, STOP_T_REGIME, STOP_FAILURE, STOP_REGIME_BASIS, STOP_ORBIT_GAP,
    STOP_FRAGILE, STOP_REBOUND_PERIOD, STOP_REBOUND_VALUES, STOP_RELEASE_PERIOD,
    STOP_RELEASE_VALUES, STOP_OUTPUT_COUNT
};

/* The long run, decided from what the run proves, detects exactly, or certifies with a
 * stated tolerance (stop_sim.c, in this order; the README's stop-oscillator section
 * states the rules, and `regime_basis` says which one decided a point): */
typedef enum {
    REGIME_FREE = 0,      /* proved never to reach the stop (a1 + a2 < s) */
    REGIME_PERIODIC = 1,  /* on a 2-phase periodic hybrid orbit: reached (two rebound-free
                             CD-COD cycles in a row), or approached (the certificate of
                             stop_approach.c) */
    REGIME_IMPACTING = 2, /* rebounds for ever, weakening towards a grazing orbit: proved
                             by a rebound and an energy below the least energy with which
                             mass one can stick (or begin a Zeno sequence) */
    REGIME_FAILED = 3,    /* the point failed (budget, solver, a physical check) */
    REGIME_UNDECIDED = 4  /* the horizon does not settle it (regime_basis: what would) */
} stop_regime;

/* Why the regime is decided, or for an undecided point what would decide it (the
 * `regime_basis` output): */
typedef enum {
    STOP_BASIS_FAILED = 0,          /* see `failure` */
    STOP_BASIS_FREE_PROVED = 1,     /* a1 + a2 < s */
    STOP_BASIS_PERIODIC_REACHED = 2,    /* two rebound-free CD-COD cycles (arrivals at rest
                                           to 1e-7 of the speed scale) */
    STOP_BASIS_PERIODIC_APPROACHED = 3, /* the approach certificate (stop_approach.c): a
                                           certificate with stated tolerances that rests
                                           on the local law of a grazing return */
    STOP_BASIS_IMPACTING_PROVED = 4,    /* a rebound, and the energy below the sticking
                                           level */
    STOP_BASIS_RAISE_T_END = 5,     /* undecided: no pattern the rules know yet */
    STOP_BASIS_NEAR_ORBIT = 6,      /* undecided: the cycles follow a 2-phase orbit from
                                       above its energy, not yet within the certificate's
                                       tolerances: a longer run decides */
    STOP_BASIS_BELOW_ORBIT = 7,     /* undecided: the cycles follow a 2-phase orbit from
                                       below its energy, which repels them (slowly): a
                                       longer run sees where they go */
    STOP_BASIS_NO_ORBIT = 8,        /* undecided: contact phases recur, but no 2-phase
                                       orbit matches their cycles */
    STOP_BASIS_COUNT
} stop_basis;

/* Why a point failed (the `failure` output): */
typedef enum {
    STOP_FAILURE_NONE = 0,
    STOP_FAILURE_BUDGET = 1,   /* max_rebounds used up */
    STOP_FAILURE_SOLVER = 2,   /* CVODE failed, or the contact search stalled */
    STOP_FAILURE_ENERGY_ROSE = 3,    /* the energy at the end exceeds the initial one
                                        (beyond the rounding allowance) */
    STOP_FAILURE_ENERGY_BALANCE = 4, /* initial energy != final energy + the losses counted
                                        event by event (beyond the allowance) */
    STOP_FAILURE_NONFINITE = 5, /* an output that must be finite is not */
    STOP_FAILURE_INVALID = 6    /* validate refuses the point (eval_batch called without it) */
} stop_failure;

/* The system: k, k12, s, epsilon and the derived constants. */
typedef struct stop_system {
    double k, k12, s, epsilon;
    double w1, w2;    /* sqrt(k) (in phase), sqrt(k + 2 k12) (anti-phase) */
    double inv_w1, inv_w2; /* 1 / w1, 1 / w2 */
    double w_shm;     /* sqrt(k + k12): mass two while mass one sticks */
    double x2t;       /* (k + k12) s / k12: F1 = 0 at the stop */
    double x2eq;      /* k12 s / (k + k12): centre of mass two's motion during CD */
} stop_system;

void stop_system_init(stop_system *sys, double k, double k12, double s, double epsilon);

typedef struct stop_state {
    double x1, v1, x2, v2;
} stop_state;

double stop_energy(const stop_system *sys, const stop_state *x);
/* F1 at the stop: -(k + k12) s + k12 x2 (> 0 pushes mass one into it). */
double stop_contact_force(const stop_system *sys, double x2);

/* --- the exact flows (stop_flow.c) --- */

/* COD in modal form: u = (x1 + x2)/2 at w1, w = (x1 - x2)/2 at w2. */
typedef struct stop_modes {
    double u, du, w, dw; /* at the start of the segment */
} stop_modes;

void stop_modes_from_state(const stop_state *x, stop_modes *m);
/* The COD state after time t from the segment start. */
void stop_cod_flow(const stop_system *sys, const stop_modes *m, double t, stop_state *x);
/* Amplitudes of the two modes in x1 (a1 of u, a2 of w): x1 never reaches s when
 * a1 + a2 < s. */
void stop_mode_amplitudes(const stop_system *sys, const stop_modes *m, double *a1, double *a2);

/* The first time in (0, horizon] at which COD brings mass one to the stop, by steps that
 * are bounded by a rigorous upper bound of x1 - s, so that no crossing is ever stepped
 * over. Returns 1 with *t_hit and the state there in *at, 0 if there is none up to the
 * horizon, -1 if the search ran out of iterations (a tangency it cannot resolve).
 * *evaluations counts flow evaluations. */
int stop_first_contact(const stop_system *sys, const stop_modes *m, double horizon,
                       double *t_hit, stop_state *at, int64_t *evaluations);

/* CD from x (mass one at the stop): the time at which mass two falls back to x2t with
 * v2 < 0, and the state after time t. */
double stop_cd_exit_time(const stop_system *sys, const stop_state *x);
void stop_cd_flow(const stop_system *sys, const stop_state *x, double t, stop_state *out);

/* --- the hybrid simulation (stop_sim.c) --- */

/* The trace of one run (stop_trace.c), for `impactsweep trace`; NULL in eval_batch. */
typedef struct stop_trace stop_trace;

/* The sections of the rebound map (with `sections` = 1; the outputs in stop_sections.c):
 * the run keeps the last STOP_SECTION_N samples of each in a ring of rows (t, E, x2, v2),
 * in the scaled units, E the energy then; mass one is at the stop at both, so that a row
 * is the whole state:
 *   - STOP_RING_REBOUND: the state leaving each rebound (v1 = -epsilon v_in; E the energy
 *     the motion keeps up to the next event), written where the rebound is counted
 *     (stop_sim.c's rebound, or in the lanes' plain rebounds);
 *   - STOP_RING_RELEASE: the state at each release from contact, the end of a CD phase
 *     (v1 = 0, x2 = x2t, v2 < 0).
 * The rings are the caller's (the lanes' or stop_evaluate_point's, apart from the runs'
 * hot state): nothing is allocated or cleared per point but the counts. STOP_SECTION_N is
 * a power of two (the ring's index is a mask) and gives periods up to STOP_SECTION_N / 2. */
#define STOP_SECTION_N 64
#define STOP_SECTION_WIDTH 4 /* t, E, x2, v2 */
enum { STOP_RING_REBOUND, STOP_RING_RELEASE, STOP_RINGS };

typedef struct stop_ring {
    int64_t count; /* samples taken over the run; sample j is row j % STOP_SECTION_N */
    double row[STOP_SECTION_N][STOP_SECTION_WIDTH];
} stop_ring;

static inline void stop_ring_put(stop_ring *ring, double t, double e, double x2, double v2)
{
    double *row = ring->row[ring->count++ & (STOP_SECTION_N - 1)];
    row[0] = t;
    row[1] = e;
    row[2] = x2;
    row[3] = v2;
}

typedef struct stop_options {
    double t_end;
    int64_t max_rebounds;
    double zeno_tail;   /* reset when the geometric tail lasts less than this / w2 */
    int use_cvode;      /* integrate COD and CD with CVODE instead of the exact flows */
    double rtol;        /* CVODE's tolerances */
    void *cvode;        /* CVODE workspace (stop_cvode.c), when use_cvode */
    int keep_periodic;  /* go on to t_end on a 2-phase periodic orbit (else stop there) */
    int certify_approach; /* at the end, try the approach certificate (stop_approach.c),
                             which searches orbits (0 in the orbit search's own runs) */
    const volatile sig_atomic_t *stop; /* NULL, or a flag polled every 64 events or
                                          search pieces: once set, the run ends (failed 3) */
    stop_trace *trace;  /* NULL, or where every segment and event is reported */
    stop_ring *sections; /* NULL, or the STOP_RINGS rings the run keeps (counts reset by
                            stop_run_begin) */
} stop_options;

typedef struct stop_result {
    int64_t rebounds, zeno_resets, contact_phases, evaluations;
    int64_t segments;      /* flow segments (COD pieces between events or at most
                              STOP_CHUNK / w1 long, CD phases, resets): the energy's
                              rounding grows with them */
    int64_t late_sticking; /* Zeno sequences and contact phases begun in the last half
                              of the run (a Zeno sequence reset into contact counts once) */
    double energy, energy_lost, t_last_rebound, t_last_reset;
    double e0;             /* the initial energy */
    double losses;         /* the energy taken out event by event: (1 - eps^2) v_in^2 / 2
                              per rebound, v1^2 / 2 per reset or arrival at rest; e0 -
                              energy - losses is rounding */
    double energy_mid;     /* the energy at t_end / 2 */
    double energy_3q;      /* the energy at 3 t_end / 4 */
    double energy_fall;    /* (energy_mid - energy) / energy_mid: the relative fall over
                              the last half of the run (0 when energy_mid is 0) */
    double energy_fall_q4; /* (energy_3q - energy) / energy_mid: the part of it in the
                               last quarter */
    double e_stick;        /* below this energy mass one can never be at the stop with
                              F1 >= 0 again: no contact phase, no Zeno sequence */
    double t_below;        /* when the energy went below e_stick (0: from the start),
                              NaN if it did not */
    double t_periodic;     /* periodic: when the rebound-free cycling began, else NaN */
    double t_regime;       /* from when the regime is proved or detected: 0 free, t_periodic,
                              the first contact phase the certificate rests on (periodic,
                              approached), the later of t_below and the first rebound
                              (impacting); NaN otherwise */
    stop_basis basis;      /* why (or, undecided, what would decide it) */
    double orbit_gap;      /* (E - E*) / E* at the last contact phase, E* the energy of the
                              2-phase orbit the cycles follow (NaN: none) */
    double v_in_last, v_in_max; /* incoming speeds of the last and the hardest rebound */
    stop_regime regime;
    stop_state final;
    double t_final;
    int failed;      /* stop_run_failure */
    int solver_flag; /* why the solver failed (solver_status.h): 0, CVODE's own flag (< 0),
                        or SOLVER_SEARCH_STALLED (the contact search) */
} stop_result;

/* stop_result.failed: */
typedef enum {
    STOP_RUN_OK = 0,
    STOP_RUN_BUDGET = 1,  /* max_rebounds used up */
    STOP_RUN_SOLVER = 2,  /* CVODE failed, or the contact search stalled (solver_flag) */
    STOP_RUN_STOPPED = 3  /* stopped by opt->stop: the result is partial */
} stop_run_failure;

/* Where the method is verified (tests/unit/test_stop.c runs the contact search, the
 * energy bookkeeping and CVODE at these ends); the model refuses points beyond them. */
#define STOP_RATIO_MIN 1e-3    /* k12 / k: beyond, x2t / s or omega2 / omega1 become
                                  extreme (omega2 / omega1 <= sqrt(2001) = 44.7 here) */
#define STOP_RATIO_MAX 1e3
#define STOP_AMPLITUDE_MAX 1e6 /* a1 + a2 over s: the contact search's rounding band is
                                  64 eps (s + a1 + a2), at most 1.4e-8 s here; beyond, the
                                  stop drowns in the rounding of the orbit */

/* COD is searched for contacts over at most STOP_CHUNK / w1 at a time, so that no
 * search meets its iteration limit on a long contact-free stretch and the stop flag is
 * polled; the state is carried on exactly by the flow between pieces. */
#define STOP_CHUNK 256.0

/* The rounding allowance of the energy checks: at most this many units of rounding
 * (DBL_EPSILON * e0) per segment or event, see stop_energy_allowance. */
double stop_energy_allowance(const stop_system *sys, const stop_options *opt,
                             const stop_result *r);

/* The checks of a finished run (not stopped) before its point may be marked done, in
 * this order: the budget or the solver failed; a number that must be finite is not; the
 * energy rose (energy_lost < -allowance); the energy's balance does not hold
 * (|energy_lost - losses| > allowance). STOP_FAILURE_NONE when it passes. */
stop_failure stop_check_result(const stop_system *sys, const stop_options *opt,
                               const stop_result *r);
/* (A free run returns at once: final = x0, t_final = 0, the orbit being known for all
 * time.) Zeno sequences are reset when their tail is short (zeno_tail) or when the
 * excursions between rebounds fall below 1e-12 s, where the contact search reaches the
 * rounding of x1 - s: below that, rebounds could no longer be told apart. */

void stop_simulate(const stop_system *sys, const stop_state *x0, const stop_options *options,
                   stop_result *result);

/* stop_simulate in steps, for the lanes (stop_lanes.c): the event loop runs in
 * stop_run_advance until it needs a contact search, which the caller runs (one point:
 * stop_search_run; lanes: all lanes' searches at once) and hands back to
 * stop_run_searched. One point's run is the same whoever runs its searches. */
typedef struct stop_search stop_search; /* stop_search.h */

/* Where a segment ended (negative: CVODE's flag, never one of these). */
enum { STOP_SEGMENT_HORIZON = 0, STOP_SEGMENT_EVENT = 1, STOP_SEGMENT_PIECE = 2,
       STOP_SEGMENT_STALLED = 3 };

/* A contact phase, as the approach certificate reads it. */
typedef struct stop_contact {
    double t_entry, e_entry; /* when it began, and the energy then (kept by CD) */
    double t_exit;           /* when it ended (NaN: in contact at the end) */
} stop_contact;

/* The certificate reads the last STOP_CYCLES cycles (a COD phase from a release to the
 * next contact phase, and that phase): STOP_CYCLES + 1 contact phases. */
#define STOP_CYCLES 8

typedef struct stop_run {
    const stop_system *sys;
    const stop_options *opt;
    stop_result *r;
    stop_state x, x0;
    double t;
    double t_mid, t_3q;       /* t_end / 2, 3 t_end / 4: the last half and quarter begin */
    double e_now;             /* the energy after the last event */
    double v_rest, x_slack;   /* arrival at rest; the width of x2 = x2t after one */
    int mid_seen, q3_seen;    /* energy_mid, energy_3q are recorded */
    int in_contact, free_flight, done;
    int defer_search;         /* the caller sets the searches up itself (stop_lanes.c): a
                                 search from x to search->horizon is all it is told */
    int events_since_release; /* rebounds and resets since the last CD exit */
    int clean_cycles;         /* CD phases each reached from the last without a rebound */
    double t_release;         /* the last CD exit (0 before the first) */
    double t_clean;           /* where the present run of clean cycles began */
    double t_first_rebound;
    stop_contact contacts[STOP_CYCLES + 1]; /* the last contact phases, a ring indexed
                                               by contact_phases */
    stop_state seg_x0;        /* the COD segment in progress: its start, */
    double seg_t0;
    int seg_more;             /* and whether it is a piece of a longer one */
    unsigned polls;
} stop_run;

void stop_run_begin(stop_run *run, const stop_system *sys, const stop_state *x0,
                    const stop_options *options, stop_result *result);
/* Returns 1 with a search set up in *search (with defer_search: from x, only
 * search->horizon set), 0 when the run has ended. */
int stop_run_advance(stop_run *run, stop_search *search);
/* The search's outcome (STOP_SEARCH_HIT, _NONE, _STALLED). */
void stop_run_searched(stop_run *run, const stop_search *search, int rc);
void stop_run_finish(stop_run *run);

/* --- the trace's side of the hook (stop_trace.c) --- */

enum {
    STOP_EVENT_REBOUND, STOP_EVENT_ZENO_RESET, STOP_EVENT_CONTACT_START,
    STOP_EVENT_CONTACT_END, STOP_EVENT_GRAZE, STOP_EVENT_PERIODIC, STOP_EVENT_END
};
/* A state of the run at time t (a sample). */
void stop_trace_state(stop_trace *trace, double t, const stop_state *x);
/* A segment of the flow (contact: CD, else COD) from x0 at t0 to x1 at t1: samples of the
 * exact flow from x0 at the trace's grid times strictly inside, then x1 at t1 (the run's
 * own state there, bit for bit). */
void stop_trace_flow(stop_trace *trace, int contact, double t0, const stop_state *x0,
                     double t1, const stop_state *x1);
/* An event at the last sample. */
void stop_trace_event(stop_trace *trace, int kind);
/* The run ended at (t, x) (a sample unless it is the last one), or (free) proved never to
 * reach the stop: the orbit from x0 sampled up to t_end. Then the event `end`. */
void stop_trace_end(stop_trace *trace, double t, const stop_state *x);
void stop_trace_free(stop_trace *trace, const stop_state *x0, double t_end);
/* Before the run of a traced point: its options (trace, stop flag), the scaled system and
 * the units the trace reports in (lengths s, speeds, times, energies), and the energy of
 * the point as given (what a free run reports). */
void stop_trace_attach(stop_trace *trace, stop_options *options, const stop_system *sys,
                       double length, double speed, double time, double energy,
                       double energy_given);

extern const is_model_trace stop_oscillator_trace;
/* The most samples of the flow the trace of a point gives with t0 <= t <= t1 (in T), events
 * aside (is_model.trace_samples). */
double stop_trace_samples(const double *point, const double *options, double t0, double t1);

/* One point of eval_batch in its scaled variables (stop_oscillator.c): what its run needs
 * and gives. */
typedef struct stop_task {
    stop_system sys;
    stop_state x0;
    double time, speed, energy; /* the units of the scaled time, speed and energy */
    stop_options opt;
    stop_result r;
    struct is_memo *orbits;     /* the workspace's orbit search results (stop_orbit_outputs) */
    stop_ring *rings;           /* the caller's STOP_RINGS rings (NULL: none), which
                                   opt.sections is with `sections` = 1 */
} stop_task;

enum { STOP_POINT_RUN, STOP_POINT_DONE, STOP_POINT_STOPPED };
/* Before the run (out[o]: where output o goes; pt->rings set by the caller): STOP_POINT_RUN with *point set up,
 * STOP_POINT_DONE when the outputs are written already (a refused point), or
 * STOP_POINT_STOPPED when the stop flag is set (the point stays pending). */
int stop_point_begin(void *workspace, const double *p, stop_trace *trace, stop_task *point,
                     double *const *out, uint8_t *status);
/* After the run (not stopped): the outputs in the point's units, the orbits, the checks. */
void stop_point_end(const double *p, const stop_task *point, double *const *out,
                    uint8_t *status);
/* The section outputs of a finished run (stop_sections.c): rebound_period,
 * rebound_values, release_period, release_values from the rings pt->opt.sections (NULL:
 * all four missing). */
void stop_section_outputs(const stop_task *pt, double *const *out);
/* Points first to count - 1 of a batch of count: NaN outputs, pending. */
void stop_pending(size_t first, size_t count, double *outputs, uint8_t *status);
/* eval_batch's points in lanes (stop_lanes.c): the same bits as stop_evaluate_point gives
 * each of them; on the stop flag, every point not finished stays pending. The lanes' memory
 * (some 20 kB) is part of the workspace. */
typedef struct stop_lanes stop_lanes;
stop_lanes *stop_lanes_create(void);
void stop_lanes_free(stop_lanes *lanes);
void stop_lanes_eval(stop_lanes *lanes, void *workspace, const double *points, size_t count,
                     double *outputs, uint8_t *status);
/* The STOP_RINGS rings lane `lane` kept for the last point it ran (a batch of one point:
 * lane 0's), for the tests. */
const stop_ring *stop_lanes_rings(const stop_lanes *lanes, int lane);

/* One point of eval_batch (stop_oscillator.c; out[o]: where output o goes), with a trace
 * or NULL. Returns 1 when the stop flag ended it (the point stays pending). */
int stop_evaluate_point(void *workspace, const double *point, stop_trace *trace,
                        double *const *out, uint8_t *status);

/* --- the fragility twins (stop_fragility.c) --- */

/* With `fragility` = 1, a decided point (done: free, periodic or impacting) is run again,
 * its twin, from its initial state moved by STOP_TWIN_SHIFT: each nonzero component c of
 * (x1_0, v1_0, x2_0, v2_0) becomes c (1 - STOP_TWIN_SHIFT) (towards 0, so that x1_0 <= s
 * still holds), each zero one STOP_TWIN_SHIFT s (positions) or STOP_TWIN_SHIFT s sqrt(k)
 * (velocities); everything else is the point's, zeno_tail too (but sections 0: only its
 * regime is read). `fragile` is 1 when the
 * twin's regime differs (undecided or failed counts as differing), 0 when it is the same,
 * NaN when no twin ran (fragility 0, or the point not decided). */
#define STOP_TWIN_SHIFT 1e-12
enum { STOP_ROBUST = 0, STOP_FRAGILE_CLASS = 1 };

/* The twin of point p (fragility 0 in it). */
void stop_twin_point(const double *p, double *twin);
/* Whether point p, with its status and regime output, has a twin. */
int stop_twin_wanted(const double *p, uint8_t status, double regime);
/* After stop_evaluate_point of p (out, status: its result): p's twin alone, and
 * out[STOP_FRAGILE]. Returns 1 when the stop flag ended it (the point stays pending:
 * every output NaN). */
int stop_twin_alone(void *workspace, const double *p, double *const *out, uint8_t *status);
/* After stop_lanes_eval of a batch: the twins of its points that have one, in the lanes,
 * and their `fragile`; a point whose twin the stop flag left pending stays pending. */
typedef struct stop_twins stop_twins;
stop_twins *stop_twins_create(void);
void stop_twins_free(stop_twins *twins);
void stop_twins_eval(stop_twins *twins, stop_lanes *lanes, void *workspace,
                     const double *points, size_t count, double *outputs, uint8_t *status);

/* --- the 2-phase periodic orbits (stop_orbits.c) --- */

#define STOP_MAX_ORBITS 64

typedef struct stop_orbit {
    double v;     /* v2 at the start of the COD phase (< 0) */
    double t_cod; /* duration of the COD phase */
    double t_cd;  /* duration of the CD phase */
} stop_orbit;

/* Every 2-phase periodic hybrid orbit with t_cod <= t_cod_max, each checked by simulating
 * it for `periods` periods; returns how many there are, and writes the STOP_MAX_ORBITS
 * (or fewer) with the smallest |v|, sorted by |v|. */
int stop_find_orbits(const stop_system *sys, double t_cod_max, int periods,
                     stop_orbit *orbits);
/* The orbits with t_cod in [t_cod_lo, t_cod_hi]: stop_find_orbits' search of the
 * intervals between poles that meet that window alone (the same roots, the same checks). */
int stop_find_orbits_between(const stop_system *sys, double t_cod_lo, double t_cod_hi,
                             int periods, stop_orbit *orbits);

/* --- the approach certificate (stop_approach.c) --- */

/* The certificate's tolerances (README, stop oscillator): */
#define STOP_APPROACH_PERIOD 1e-3 /* every cycle lasts the orbit's period t_cod + t_cd
                                     to this (relative), */
#define STOP_APPROACH_TIMING 5e-2 /* and its COD phase (release to contact) the orbit's
                                     t_cod to this */
#define STOP_APPROACH_GAP 1e-3    /* the energy at the last contact phase is above the
                                     orbit's E* by at most this times E* */
#define STOP_APPROACH_LOSS 0.5    /* no cycle loses more than this share of the gap it
                                     starts from */

/* From the run's last STOP_CYCLES cycles at its end (rn->contacts): PERIODIC_APPROACHED
 * when they certify the approach, else the undecided basis they give (NEAR_ORBIT,
 * BELOW_ORBIT, NO_ORBIT, or RAISE_T_END when there are no such cycles); *gap is
 * (E - E*) / E* of the orbit they follow (NaN: none), *t_from the first contact phase
 * the certificate reads. */
stop_basis stop_approach(const stop_run *rn, double *gap, double *t_from);

/* The orbit outputs a point reports (orbits, orbit_v, orbit_t_cod in the scaled units),
 * in the scaled system `sys` up to t_cod_max: stop_find_orbits' count and its orbit of
 * least |v|. They depend on (k, k12, s) and t_cod_max alone, in the scaled system on
 * k12 / k alone (not on epsilon, the initial state or the horizon), so a workspace keeps
 * them in an is_memo (src/core/contract/memo.h) keyed by those four doubles and searches once per
 * distinct key (memo NULL: every time). */
typedef struct stop_orbit_summary {
    double count, v, t_cod; /* v and t_cod NaN when count is 0 */
} stop_orbit_summary;
#define STOP_ORBIT_MEMO_ENTRIES 1024 /* 64 bytes each */
void stop_orbit_outputs(struct is_memo *memo, const stop_system *sys, double t_cod_max,
                        stop_orbit_summary *out);

/* --- CVODE (stop_cvode.c) --- */
int stop_cvode_create(void **cvode);
void stop_cvode_free(void *cvode);
/* COD (contact = 0) or CD (contact = 1) from x for at most `horizon`, stopping at the
 * first x1 = s (COD) or x2 = x2t with v2 < 0 (CD): returns 1 stopped at an event, 0 at
 * the horizon, < 0 on solver failure; *elapsed and *out are set. */
int stop_cvode_segment(void *cvode, const stop_system *sys, const stop_state *x, int contact,
                       double horizon, double rtol, double *elapsed, stop_state *out);

#endif
