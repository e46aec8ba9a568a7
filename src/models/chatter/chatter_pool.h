/* chatter_pool.h: the lane pool that chatter_batch.c (drops in and out, sums in drop
 * order) and chatter_round.c (a round of impacts in vector registers) share. Internal to
 * the chatter model. */
#ifndef IMPACTSWEEP_CHATTER_POOL_H
#define IMPACTSWEEP_CHATTER_POOL_H

#include "chatter.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* A multiple of every PAIR * BLOCK below: 3 x 4 (AVX2), 2 x 8 (AVX-512), 2 x 2 (SSE2). */
#define LANES 48
#define NO_DROP SIZE_MAX

/* Drops of a group that may be started beyond its oldest unfinished drop. A lane waits
 * (idles) only while one drop outlives the WINDOW drops started after it, ~WINDOW / LANES
 * = 1365 times the length of the drops around it, which takes budgets beyond ~10^4
 * impacts: a point of 10^6-impact drops followed in one batch by points with 4e6 drops
 * of ~5 impacts ran 8% slower than with unbounded storage (2.79 s against 2.58 s, with
 * 64 lanes), and points whose drops are alike never wait. 17 bytes a slot: 1.1 MiB. */
#define WINDOW (1u << 16)

/* A slot's state: empty, or the drop's outcome + 1, with SLOT_ENERGY_ROSE when it ended
 * with more kinetic energy than it started with (chatter_check_result). */
#define SLOT_EMPTY 0
#define SLOT_ENERGY_ROSE 0x80
#define SLOT_CERTIFIED 0x40 /* CC, stopped in the certificate's region (chatter_region) */
#define SLOT_OUTCOME 0x3f

/* Regions of the points whose drops are in the lanes: each lane and the point whose
 * drops are being started hold one, so LANES + 1 entries are always enough. */
#define REGIONS (LANES + 1)

/* Lanes that reached PCC's gate in a round (chatter_pcc_proven decides at its end): the
 * state before the gate's impact and the pair's vertices. */
typedef struct pcc_gate {
    double q[LANES][3], p[LANES][3];
    int last[LANES], next[LANES];
    uint8_t waiting[LANES]; /* 1: a proof to make before the lane goes on */
} pcc_gate;

struct chatter_workspace {
    /* Lane state: configuration q and velocity p, each scaled by its own power of two. */
    _Alignas(64) double qx[LANES], qy[LANES], qz[LANES];
    _Alignas(64) double px[LANES], py[LANES], pz[LANES];
    _Alignas(64) double last[LANES];     /* vertex hit last, -1 before the first impact */
    _Alignas(64) double impacts[LANES];
    _Alignas(64) double limit[LANES];    /* where the lane pauses: max_impacts of the lane's
                                            drop, or its next checkpoint (certify_pause) */
    _Alignas(64) double time[LANES];     /* accumulated flight time, unscaled */
    _Alignas(64) double tscale[LANES];   /* 2^(q exponent - p exponent) */
    _Alignas(64) double c_rot[LANES], c_h[LANES]; /* impact coefficients, see chatter_apply_impact */
    _Alignas(64) double active[LANES];   /* 1: still simulating, 0: finished or empty */
    _Alignas(64) double lifted[LANES];   /* 1: ended by lift-off */
    _Alignas(64) double pcc[LANES];      /* 1: PCC proven (the drop ended, lane_checkpoint) */
    _Alignas(64) double flat[LANES];     /* 1: the last flight landed flat (the drop ends) */
    _Alignas(64) double armed[LANES];    /* 1: flights are tested for a flat landing */
    pcc_gate gate;                       /* lanes at PCC's gate (the proof) */
    _Alignas(64) int64_t q_exp[LANES], p_exp[LANES]; /* the powers of two taken out */
    double rho2[LANES], gamma[LANES];    /* rho^2 and gamma (the PCC proof) */
    double energy0[LANES];               /* the initial kinetic energy (checks) */
    size_t drop[LANES];                  /* the drop's number in its group, or NO_DROP */
    double budget[LANES];                /* max_impacts of the lane's drop */
    int region[LANES];                   /* its point's entry of regions[] */
    uint8_t certified[LANES];            /* 1: stopped in the region */

    chatter_region regions[REGIONS];     /* the certificates' regions, edges = 0: none */
    int region_refs[REGIONS];            /* lanes (and the point being started) using one */
    chatter_drop_stream stream;          /* what the drops of the point being started share */

    chatter_cone_work *cone;             /* the certificate search's arrays */
    const volatile sig_atomic_t *stop;   /* the run's stop flag, never NULL */

    /* Finished drops waiting to be folded into their point, slot = drop % WINDOW. */
    uint8_t slot_state[WINDOW];
    double slot_impacts[WINDOW];
    double slot_time[WINDOW];
};

/* An exponent sum as ldexp's argument: beyond +-4000 ldexp gives 0 or inf anyway. */
static inline int ldexp_exponent(int64_t e)
{
    return e < -4000 ? -4000 : e > 4000 ? 4000 : (int)e;
}

/* A round of `steps` impacts on every active lane of the pool (chatter_round.c). */
void chatter_run_steps(chatter_workspace *ws, const chatter_geometry *geometry, int steps);

#endif
