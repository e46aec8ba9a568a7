/* forced_stop.h: the physics of the forced impact oscillator, shared by the plug-in
 * (forced_stop.c) and its tests (test_forced_stop.c): the closed-form free flight, the
 * contact search that cannot step over a contact, and the simulation of impacts, chatter,
 * sticking and the stroboscopic record that decides the final motion.
 *
 *     x'' + 2 zeta x' + x = A cos(omega t),   x <= delta,
 *     at x = delta with x' = v > 0:  x' <- -r v.
 *
 * Lengths are in a unit L of the user's choosing, times in 1/omega_n (the natural
 * frequency is 1), speeds in L omega_n. Everything here is free of globals and allocates
 * nothing: a simulation lives on the caller's stack. */
#ifndef FORCED_STOP_H
#define FORCED_STOP_H

#include <math.h>
#include <signal.h>
#include <stdint.h>

#ifndef M_PI /* strict C11 leaves it out */
#define M_PI 3.14159265358979323846
#endif

#define FS_MAX_PERIOD 64                  /* the longest period detected, in forcing periods */
#define FS_RING (2 * FS_MAX_PERIOD + 1)   /* stroboscopic samples kept: two of the longest */

typedef struct fs_system {
    double omega, zeta, A, delta, r;      /* the parameters (see forced_stop.c) */
    double wd;                            /* damped natural frequency sqrt(1 - zeta^2) */
    double pc, ps;                        /* steady response pc cos(omega t) + ps sin(omega t) */
    double X;                             /* its amplitude A / |1 - omega^2 + 2 i zeta omega| */
    double T;                             /* forcing period 2 pi / omega */
    double phase_release;                 /* acos(delta / A): where a stuck mass is let go; NaN:
                                             never stuck (delta >= A), INFINITY: never let go
                                             (delta <= -A) */
    double scale;                         /* |delta| + X: the length scale of the motion */
} fs_system;

/* A free flight from its start (time s = 0 at forcing phase phase0): x = y + x_p with the
 * homogeneous part y(s) = e^{-zeta s} (y0 cos(wd s) + b sin(wd s)) = Re(C e^{lambda s}),
 * lambda = -zeta + i wd, |lambda| = 1, so |y^(k)(s)| <= amp e^{-zeta s} for every k. */
typedef struct fs_flight {
    double y0, dy0, b, amp;
    double phase0;                        /* omega t at the start, in [0, 2 pi) */
    double reach;                         /* the rounding band at the stop, in L */
} fs_flight;

void fs_system_init(fs_system *sys, double omega, double zeta, double A, double delta,
                    double r);

/* The steady response and its velocity at forcing phase `phase`. */
void fs_steady(const fs_system *sys, double phase, double *xp, double *vp);

/* Starts a flight from (x, v) at forcing phase `phase`. */
void fs_flight_start(const fs_system *sys, double x, double v, double phase, fs_flight *f);

/* Position, velocity and acceleration after time s of the flight. */
void fs_flight_at(const fs_system *sys, const fs_flight *f, double s, double *x, double *v,
                  double *acc);

/* The relative energy (y'^2 + y^2) / 2 of the homogeneous part at (x, v, phase): constant
 * in flight when zeta = 0, never rising when zeta > 0 (dW/dt = -2 zeta y'^2). */
double fs_relative_energy(const fs_system *sys, double x, double v, double phase);

/* Can the flight never reach the stop (amp + X below delta, beyond rounding)? */
int fs_flight_is_free(const fs_system *sys, const fs_flight *f);

/* The first contact with the stop in (0, horizon]: 1 (at *s_hit, with the state there), 0
 * (none before the horizon, proved by a rigorous bound: a contact cannot be stepped over),
 * -1 (the search took more than its limit of steps). *evaluations counts flow evaluations.
 * Starting at the stop (after an impact or a release) the start itself is no contact. */
int fs_first_contact(const fs_system *sys, const fs_flight *f, double horizon, double *s_hit,
                     double *x, double *v, int64_t *evaluations);

typedef enum {
    FS_REGIME_FREE,      /* proved never to reach the stop again */
    FS_REGIME_PERIODIC,  /* a periodic motion, impacting (or not), without chatter */
    FS_REGIME_CHATTER,   /* a periodic motion with chatter (impacts accumulating, ended by a
                            reset) and possibly sticking, in every period */
    FS_REGIME_UNDECIDED, /* no period <= max_period by the horizon: chaotic, or a transient */
    FS_REGIME_FAILED
} fs_regime;

typedef enum {
    FS_CHECK_NONE,       /* every check passed */
    FS_CHECK_BUDGET,     /* max_impacts simulated before the horizon */
    FS_CHECK_SEARCH,     /* the contact search did not end */
    FS_CHECK_PENETRATION,/* a state beyond the stop, or an arrival moving away from it */
    FS_CHECK_ENERGY,     /* the relative energy rose in a flight */
    FS_CHECK_NONFINITE,  /* a state or an output is not a finite number */
    FS_CHECK_INVALID,    /* the point is outside the admissible set (never simulated) */
    FS_CHECK_STOPPED     /* the run was asked to stop: the point stays pending */
} fs_check;

typedef struct fs_options {
    int64_t periods;         /* horizon, in forcing periods */
    int max_period;          /* 1..FS_MAX_PERIOD */
    int64_t max_impacts;     /* budget */
    double zeno_tail;        /* reset a chatter when the rest lasts less than this many
                                forcing periods */
    const volatile sig_atomic_t *stop; /* polled; may be NULL */
} fs_options;

typedef struct fs_result {
    fs_regime regime;
    fs_check check;
    int period;              /* in forcing periods; 0: not periodic */
    int64_t impacts_per_period; /* impacts simulated in one period of the final motion */
    int64_t impacts, resets, sticks;
    double v_last;           /* arrival speed at the last impact (NaN: none) */
    double phase_last;       /* forcing phase of the last impact, in [0, 2 pi) (NaN: none) */
    double v_max_late;       /* largest arrival speed in the last half of the run (0: none) */
    int64_t periods_done;    /* forcing periods simulated (less than asked: proved free) */
} fs_result;

void fs_simulate(const fs_system *sys, double x0, double v0, const fs_options *opt,
                 fs_result *res);

#endif
