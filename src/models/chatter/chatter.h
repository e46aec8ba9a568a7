/* chatter.h: the chatter model (a regular n-gon chattering on a plane, MODELS.md sec. 1)
 * and the pieces of it that the tests check on their own: the geometry, the impact
 * map, the end-state classifier and a plain scalar simulation of one drop. */
#ifndef IMPACTSWEEP_CHATTER_H
#define IMPACTSWEEP_CHATTER_H

#include <signal.h>
#include <stdint.h>

#include "../../core/contract/model.h"
#include "../../core/base/rng.h"

extern const is_model is_model_chatter;

#define CHATTER_MAX_VERTICES 64

/* A drop ends as one of these (the values of the per-drop outcome and of `regime`). */
typedef enum {
    CHATTER_ICC = 0, CHATTER_CC = 1, CHATTER_PCC = 2, CHATTER_FLAT = 3, CHATTER_OUTCOMES = 4
} chatter_outcome;

/* PCC: two adjacent vertices i, j chatter to rest (infinitely many impacts in finite
 * time) while the body moves on, its velocity tending to the ray -b m_ij. In the
 * linearised model every other vertex then approaches the plane and all of them reach it
 * together (q = 0): the simultaneous impact that the paper calls undecidable. So a drop
 * ends at PCC, decided by chatter_pcc_proven (a proof, not a tolerance): before an impact
 * of an adjacent pair whose two speeds are below CHATTER_PCC_TOLERANCE |p_3| (only there
 * is the proof tried), the pair's alternation is shown to go on for ever and to come to
 * rest before any other vertex can reach the plane. (Not defined for the rod.) */
#define CHATTER_PCC_TOLERANCE 1e-6

/* A flat landing: a flight after which every vertex is at the plane at once, a
 * simultaneous impact of all contacts, where the paper's single-point impacts (and so its
 * classification) are undefined. In exact arithmetic it follows a Zeno accumulation of a
 * pair (PCC, whose drops end before it); in floating point also the pair of a drop that
 * is not PCC, its alternation dying out slowly (complex roots near the double root),
 * comes to rest below rounding, its heights collapse, and the next vertex lands on them:
 * the configuration is then rounding noise, and the drop went on with zero-time impacts,
 * a time scale that overflowed and a PCC-looking velocity. The test is on the centroid's
 * height q_3, the mean height of the vertices (the f_i sum to (0, 0, n)): a flight that
 * leaves at most CHATTER_FLAT_RATIO of it lands flat, all vertices within n times that of
 * the plane; the drop ends there, class CHATTER_FLAT, its time that of the landing. It
 * is a tolerance, as PCC's gate is: near the double root drops land ever closer to flat,
 * down to the threshold (the long-double simulator of the tests finds flights left with
 * 2.5e-10 of q_3 that went on); 2^-32 keeps the rounding of the flight (2^-52 of q_3
 * before it) below 2^-20 of the configuration after it. */
#define CHATTER_FLAT_RATIO 0x1p-32

/* Parameter indices, in the order of the model's table. */
enum {
    CHATTER_N, CHATTER_RHO, CHATTER_GAMMA, CHATTER_SAMPLES, CHATTER_MAX_IMPACTS,
    CHATTER_PERTURBATION, CHATTER_SEED, CHATTER_CONE_ROUNDS, CHATTER_EARLY_STOP,
    CHATTER_PARAM_COUNT
};

/* Output indices, in the order of the model's table (new outputs go at the end: files
 * and figures name them, but the order stays). */
enum {
    CHATTER_P_ICC, CHATTER_P_CC, CHATTER_P_PCC, CHATTER_IMPACTS_MEAN, CHATTER_IMPACTS_MAX,
    CHATTER_TIME_MEAN, CHATTER_REGIME, CHATTER_CONE, CHATTER_CONE_ROUNDS_USED,
    CHATTER_P_ICC_LO, CHATTER_P_ICC_HI, CHATTER_P_CC_LO, CHATTER_P_CC_HI, CHATTER_P_PCC_LO,
    CHATTER_P_PCC_HI, CHATTER_P_CERTIFIED, CHATTER_P_UNDECIDED, CHATTER_P_FLAT,
    CHATTER_P_FLAT_LO, CHATTER_P_FLAT_HI, CHATTER_OUTPUT_COUNT
};

/* Each outcome's fraction and the bounds of its Wilson interval, indexed by outcome. */
extern const int chatter_fraction_outputs[CHATTER_OUTCOMES][3];

/* The most impacts a point may ask for, samples * max_impacts (the model's validate
 * refuses more). 10^12 impacts are about 45 minutes of one core at n = 4 (3.8e8
 * impacts/s with AVX-512) and 7 hours at n = 64 (4.2e7/s): far beyond any figure of the
 * paper, while a slip of the finger (samples = 1e9, max_impacts = 1e9) is caught before
 * anything runs. It also keeps every per-point sum of impact counts an integer below
 * 2^53, so impacts_mean is the correctly rounded mean and never exceeds impacts_max. Long
 * points within the bound stop politely on the run's stop flag (chatter_workspace_watch). */
#define CHATTER_MAX_POINT_IMPACTS 1e12

/* The two-sided 95% normal quantile, Phi^-1(0.975), of the Wilson score intervals. */
#define CHATTER_WILSON_Z 1.959963984540054

/* The 95% Wilson score interval [*lo, *hi] of a binomial proportion with k successes in
 * n >= 1 trials: the p for which |k/n - p| <= z sqrt(p (1 - p) / n). Written without
 * cancellation (lo as k^2 / (n (k + z^2/2 + z S)), the product of the bounds over hi),
 * so that lo = 0 exactly when k = 0 and hi = 1 exactly when k = n. */
void chatter_wilson(int64_t k, int64_t n, double *lo, double *hi);

/* The physical-sense checks every point passes before it is marked done (chatter_check.c):
 * outputs[o * stride] is output o of the point with parameters `point`; energy_ok says
 * that no drop ended with more kinetic energy than it started with. Returns NULL when the
 * result makes sense, else a short description of the first check that failed. */
const char *chatter_check_result(const double *point, const double *outputs, size_t stride,
                                 int energy_ok);

/* Contact normals f_i = (y_i, -x_i, 1) of the regular n-gon, with the vertex
 * coordinates snapped to exact values where they are 0, +-1/2, +-1, and mirror
 * symmetric by construction; unit directions of m_{i,i+1}. */
typedef struct chatter_geometry {
    int n;
    double fx[CHATTER_MAX_VERTICES]; /*  y_i */
    double fy[CHATTER_MAX_VERTICES]; /* -x_i */
    double m_unit[CHATTER_MAX_VERTICES][3]; /* m_{i,i+1} / |m_{i,i+1}| (unused for n = 2) */
} chatter_geometry;

void chatter_geometry_init(chatter_geometry *geometry, int n);

/* p <- U_j p: the impact at vertex j, f_j.p+ = -gamma f_j.p-. */
void chatter_apply_impact(const chatter_geometry *geometry, double rho, double gamma, int j,
                          double p[3]);

/* The paper's random drop number `sample`: p0 = (R1, R2, -1), q0 = (R3, R4, 1 + R5),
 * R_k uniform on (0, perturbation), drawn from the counter-based generator keyed by
 * seed and by the digest of the point's physical parameters (n, rho, gamma). For the
 * rod (n = 2) phi_x is left out: its components are set to zero. */
void chatter_initial_state(const double *point, uint64_t sample, double q0[3], double p0[3]);

/* The same in two parts, for the many drops of one point: what they share (the key, the
 * digest, the perturbation, whether the body is the rod), then drop `sample`'s state. */
typedef struct chatter_drop_stream {
    is_rng_key key;
    uint64_t digest;
    double perturbation;
    int rod;
} chatter_drop_stream;
void chatter_drop_stream_of(const double *point, chatter_drop_stream *stream);
void chatter_drop_state(const chatter_drop_stream *stream, uint64_t sample, double q0[3],
                        double p0[3]);

/* Whether the velocity p is PCC-like: two adjacent vertices with |f.p| below
 * CHATTER_PCC_TOLERANCE |p_3| (always 0 for the rod). */
int chatter_is_pcc_velocity(const chatter_geometry *geometry, const double p[3]);

/* The PCC decision before the impact at vertex `next` (approaching, f_next.p < 0) that
 * follows one at `last`, an adjacent vertex, in the state (q, p) (each at any scale; rho2
 * = rho^2): 1 when the pair's
 * alternation provably goes on for ever, coming to rest in finite time before any other
 * vertex reaches the plane and with p_3 < 0 throughout (derivation in chatter_geometry.c);
 * 0 when that is not shown (where the alternation dies out, or not yet). Both simulators
 * ask it, with the same bits. */
int chatter_pcc_proven(const chatter_geometry *geometry, double rho2, double gamma, int last,
                       int next, const double q[3], const double p[3]);

/* Whether a flight that takes the centroid's height from qz_before to qz_after lands
 * flat (CHATTER_FLAT_RATIO); NaN goes on, as it does in the lift-off test. */
static inline int chatter_lands_flat(double qz_before, double qz_after)
{
    return qz_after <= qz_before * CHATTER_FLAT_RATIO;
}

/* Whether a drop's flights are tested for a flat landing from its start; else from its
 * first impact that passes the first half of PCC's gate (the vertex hit approaches slower
 * than CHATTER_PCC_TOLERANCE |p_3|) on. Why that loses none: after a flat flight every
 * vertex is within n CHATTER_FLAT_RATIO q_3 of the plane (heights >= 0 with mean q_3'),
 * and the flight lasted at least (1 - CHATTER_FLAT_RATIO) q_3 / |p_3| (the centroid came
 * down), so the vertex hit just before, which rose at gamma times the speed it arrived
 * with, arrived slower than n CHATTER_FLAT_RATIO |p_3| / ((1 - CHATTER_FLAT_RATIO) gamma);
 * |p_3| only falls at impacts. That is below the tolerance for gamma > n CHATTER_FLAT_RATIO
 * / CHATTER_PCC_TOLERANCE, and twice that keeps a margin for rounding; below it the test
 * runs from the start. The first flight cannot land flat (q0 and p0 would have to be
 * opposite, which R_k > 0 rules out), and the rod never does in the sense that matters: its
 * impacts alternate whatever q is, so it is never armed. The kernel thus tests a flag a
 * block, not every flight (3 % of the bench point's time). */
static inline int chatter_flat_armed(int n, double gamma)
{
    return n >= 3 && gamma <= 2.0 * n * CHATTER_FLAT_RATIO / CHATTER_PCC_TOLERANCE;
}

typedef struct chatter_region chatter_region; /* below, with the certificates */

typedef struct chatter_drop {
    chatter_outcome outcome;
    int certified;  /* 1: CC, stopped because the velocity entered the region */
    int64_t impacts;
    double time;    /* accumulated flight time up to the last impact */
    int64_t pcc_at; /* impacts before the one before which PCC was proven (the drop ends
                       with that impact), -1 if never */
    double q[3], p[3]; /* end state, each rescaled by a power of two (directions only) */
} chatter_drop;

/* One drop simulated impact by impact in plain scalar code: the reference that the
 * vectorised batch kernel is tested against. */
void chatter_drop_reference(const chatter_geometry *geometry, double rho, double gamma,
                            int64_t max_impacts, const double q0[3], const double p0[3],
                            chatter_drop *result);
/* The same with the early stop of certified drops (region NULL or empty: none): the drop
 * stops as certified CC at the first checkpoint, every CHATTER_CERTIFY_EVERY impacts and
 * at max_impacts, at which it is not PCC and its velocity lies in the region. */
void chatter_drop_reference_certified(const chatter_geometry *geometry, double rho,
                                      double gamma, int64_t max_impacts,
                                      const chatter_region *region, const double q0[3],
                                      const double p0[3], chatter_drop *result);

/* --- the certificates (chatter_cone.c) --- */

typedef enum {
    CHATTER_CONE_FOUND = 0,       /* an effectively invariant cone: CC (or PCC) certified */
    CHATTER_CONE_NONE = 1,        /* a generator leaves p_3 < 0: no such cone */
    CHATTER_CONE_INCONCLUSIVE = 2 /* round limit (or vertex limit) reached */
} chatter_cone_answer;

/* The search stops adding once a round grows the cone by less solid angle than this. */
#define CHATTER_CONE_EPSILON 1e-5
/* Candidate cones with more vertices than this end the search as inconclusive. */
#define CHATTER_CONE_MAX_VERTICES 2048

typedef struct chatter_cone_work chatter_cone_work;
chatter_cone_work *chatter_cone_work_create(void);
void chatter_cone_work_free(chatter_cone_work *work);

/* The effectively-invariant-cone search for n >= 3; *rounds is the number used. On
 * CHATTER_CONE_FOUND the cone is left in work (see chatter_cone_polygon). */
chatter_cone_answer chatter_cone_search(const chatter_geometry *geometry, double rho,
                                        double gamma, int max_rounds, chatter_cone_work *work,
                                        int *rounds);
/* The last cone of a search as points (x, y) of the plane p_3 = -1; returns the count. */
size_t chatter_cone_polygon(const chatter_cone_work *work, double (*points)[2],
                            size_t capacity);

/* The rod's exact complete-chatter condition (derivation in chatter_cone.c). */
chatter_cone_answer chatter_rod_condition(double rho, double gamma);

/* --- the early stop of certified drops (chatter_cone.c, chatter_batch.c) --- */

/* The region of post-impact velocities from which a drop cannot lift off any more: a
 * convex set of the plane p_3 = -1 of the velocity relabelled so that the vertex just
 * hit is vertex 0 (chatter_region_contains), given as half-planes a x + b y + c >= 0
 * with (a, b) of unit length. For n >= 3 it is a 32-gon Q around the search's cone K that
 * the velocity is checked to return to: along every admissible impact sequence from Q
 * (C_j relaxed by CHATTER_REGION_SLACK) it is back in Q, CHATTER_REGION_MARGIN inside every
 * edge, within 24 impacts, with p_3 < 0 in between (the argument is at
 * chatter_cone_region). For the rod it is the exact complete-chatter set of post-impact
 * velocities, one half-plane (a = 0; chatter_rod_region). edges = 0: no region, drops run
 * to the cap. */
/* A drop's velocity is tested against the region every this many impacts of the drop
 * (and at max_impacts): at the kernel's round boundaries, so the test costs nothing in
 * its inner loop, and at fixed impact counts of the drop, so a drop stops at the same
 * impact whatever lane, round or batch it runs in: at the first such checkpoint at which
 * it is in the region (not necessarily the first impact after it entered). */
#define CHATTER_CERTIFY_EVERY 16
#define CHATTER_REGION_MAX_EDGES 32
#define CHATTER_REGION_MARGIN 1e-9
#define CHATTER_REGION_SLACK 1e-9

struct chatter_region {
    int edges;
    double a[CHATTER_REGION_MAX_EDGES], b[CHATTER_REGION_MAX_EDGES],
        c[CHATTER_REGION_MAX_EDGES];
};

/* The region of a point whose chatter_cone_search just answered CHATTER_CONE_FOUND (its
 * cone still in work); returns 1, or 0 (edges = 0) when no polygon tried passes the
 * check. */
int chatter_cone_region(const chatter_geometry *geometry, double rho, double gamma,
                        chatter_cone_work *work, chatter_region *region);
/* Whether two adjacent vertices can keep alternating their impacts near rest (n = 3 with
 * rho^2 < 1/2; never for n >= 4, the paper's Lemma 4): then a drop in the region may still
 * end in PCC, and chatter_cone_region gives none. */
int chatter_pcc_possible(const chatter_geometry *geometry, double rho);
/* Whether any drop can chatter at all: 0 where every impact speeds every other vertex
 * up (rho^2 >= -cos(2 pi k / n) for all k; n = 3: rho^2 >= 1/2), so that each vertex is
 * hit at most once and every drop lifts off within n impacts (chatter_cone.c). */
int chatter_chatter_possible(const chatter_geometry *geometry, double rho);
/* Whether a region that stops drops can exist at all: chatter possible and PCC not.
 * Never for n = 3 (rho^2 < 1/2 allows PCC, rho^2 >= 1/2 no chatter), so early_stop costs
 * an n = 3 point nothing; chatter_point_certificate does not look for one elsewhere. */
int chatter_region_possible(const chatter_geometry *geometry, double rho);
/* The rod's region: 1, or 0 (edges = 0) where chatter_rod_condition is not FOUND or the
 * two eigenvalues are too close to tell the sides of the repelling eigenvector apart. */
int chatter_rod_region(double rho, double gamma, chatter_region *region);
/* Whether the velocity p (any positive scale, p_3 < 0) just after an impact at vertex
 * `vertex` lies in the region: the same bits wherever it is evaluated. */
int chatter_region_contains(const chatter_geometry *geometry, const chatter_region *region,
                            int vertex, const double p[3]);

/* A point's certificate as the `cone` output gives it (NaN where not asked for: n >= 3
 * with cone_rounds = 0), with the rounds used, and the region that stops its drops early:
 * none (edges = 0) with early_stop = 0. */
double chatter_point_certificate(const double *point, chatter_cone_work *work, int *rounds,
                                 chatter_region *region);

/* --- the trace of one drop (chatter_trace.c), for `impactsweep trace` --- */

/* A lane of the kernel as it stands: q and p each scaled by its own power of two. */
typedef struct chatter_lane {
    double q[3], p[3];
    int q_exp, p_exp;
    double rho2, time, impacts, vertex;
} chatter_lane;

/* What the kernel tells the trace; NULL in eval_batch. The kernel runs the traced drop
 * one impact per round, which changes no bit of any drop. */
typedef struct chatter_hook {
    size_t point;          /* the batch's point and ... */
    uint64_t drop;         /* ... its drop (sample number) that is traced */
    int lane;              /* the lane running it, -1 before and after */
    double impacts;        /* impacts reported so far */
    const is_trace_sink *sink;
    is_code failure;       /* the sink's first failure: the kernel stops (pending) */
} chatter_hook;

void chatter_hook_start(chatter_hook *hook, int lane, const chatter_lane *view);
/* After a round of the traced lane: a new impact. */
void chatter_hook_impact(chatter_hook *hook, const chatter_lane *view);
/* The drop is over: slot_state is what the point folds in (outcome + 1, and 0x80 when
 * its kinetic energy rose). */
void chatter_hook_finish(chatter_hook *hook, const chatter_lane *view, unsigned slot_state);

extern const is_model_trace chatter_trace;

/* Internal to the model: the batch kernel (chatter_batch.c). */
typedef struct chatter_workspace chatter_workspace;
is_code chatter_workspace_create(void **workspace, is_error *err);
void chatter_workspace_free(void *workspace);
/* The run's stop flag (model.h): polled at every round of the kernel, a few microseconds
 * apart; once it is set the batch's unfinished points are left pending. NULL: none. */
void chatter_workspace_watch(void *workspace, const volatile sig_atomic_t *stop);
is_code chatter_eval_batch(void *workspace, const double *points, size_t count,
                           double *outputs, uint8_t *status, is_error *err);
/* eval_batch's work, with a trace's hook or NULL. */
void chatter_evaluate(void *workspace, const double *points, size_t count, double *outputs,
                      uint8_t *status, chatter_hook *hook);

#endif
