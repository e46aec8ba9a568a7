/* collision_law.c: the seven collision laws in nondimensional form (right-hand sides,
 * contact force, energy, event functions), what each event means for the collision,
 * and the physical checks of a result: the part both integrators share. */
#include "collision.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void collision_power_init(collision_power *power, double exponent)
{
    power->exponent = exponent;
    power->kind = exponent == 1.0   ? 1
                  : exponent == 2.0 ? 2
                  : exponent == 3.0 ? 3
                  : exponent == 1.5 ? 4
                  : exponent == 2.5 ? 5
                                    : 0;
}

static int maxwell_type(const collision_problem *pb)
{
    return pb->law == LAW_BWM || pb->law == LAW_MAXWELL;
}

/* sign(u) |u|^e, and |u|^e, for the power tables. */
static double signed_power(const collision_power *power, double u)
{
    double magnitude = collision_power_eval(power, fabs(u));
    return u < 0.0 ? -magnitude : magnitude;
}

/* The Bouc-Wen hysteretic variable: Z' = A (U - pi2 |Z|^(n-1) Z |U| - pi3 |Z|^n U). */
static double bouc_wen_rate(const collision_problem *pb, double z, double u)
{
    double zn = collision_power_eval(&pb->pow_n, fabs(z)); /* |Z|^n */
    double zn_signed = z < 0.0 ? -zn : zn;                 /* |Z|^(n-1) Z */
    return pb->A * (u - pb->pi2 * zn_signed * fabs(u) - pb->pi3 * zn * u);
}

void collision_initial_state(const collision_problem *pb, double *y)
{
    for (int i = 0; i < pb->dimension; i++)
        y[i] = 0.0;
    if (maxwell_type(pb))
        y[3] = -1.0; /* W(0) = -1 */
    else
        y[1] = -1.0; /* V(0) = -1 */
}

/* |u|^(p-1), u >= 0, as |u|^p / |u|: 0 at u = 0 for p > 1, 1 for p = 1 (the lanes'
 * vpower_less_one, the same bits). */
static double power_less_one(const collision_problem *pb, double u)
{
    return pb->p == 1.0 ? 1.0 : u > 0.0 ? collision_power_eval(&pb->pow_p, u) / u : 0.0;
}

/* The Maxwell-type spring-dashpot rate R' = alpha pi1 |Y|^(p-1) Y + alpha_c pi1 |Z|^(p-1) Z. */
static double maxwell_rate(const collision_problem *pb, const double *y)
{
    return pb->pi1 * (pb->alpha * signed_power(&pb->pow_p, y[1]) +
                      pb->alpha_c * signed_power(&pb->pow_p, y[2]));
}

/* BWSHC's F from xp = |X|^p, zp = |Z|^p. */
static double bwshc_force(const collision_problem *pb, const double *y, double xp, double zp)
{
    double x = y[0], v = y[1], z = y[2];
    return -pb->alpha * (x < 0.0 ? -xp : xp) - pb->alpha_c * (z < 0.0 ? -zp : zp) -
           pb->pi1 * xp * v;
}

/* V' = F of the Kelvin-Voigt type (X, V, Z). */
static double kelvin_voigt_force(const collision_problem *pb, const double *y)
{
    double x = y[0], v = y[1], z = y[2];
    switch (pb->law) {
    case LAW_HOOKE:
        return -x;
    case LAW_KELVIN_VOIGT:
        return -x - pb->pi1 * v;
    case LAW_HERTZ:
        return -signed_power(&pb->pow_p, x);
    case LAW_HUNT_CROSSLEY: {
        double xp = collision_power_eval(&pb->pow_p, fabs(x));
        return -(x < 0.0 ? -xp : xp) - pb->pi1 * xp * v;
    }
    default: /* LAW_BWSHC */
        return bwshc_force(pb, y, collision_power_eval(&pb->pow_p, fabs(x)),
                           collision_power_eval(&pb->pow_p, fabs(z)));
    }
}

void collision_rhs(const collision_problem *pb, const double *y, double *dydt)
{
    if (maxwell_type(pb)) { /* (R, Y, Z, W) */
        double w = y[3];
        double r_rate = maxwell_rate(pb, y);
        double z_rate = pb->law == LAW_BWM ? bouc_wen_rate(pb, y[2], w) : 0.0;
        double y_p1 = power_less_one(pb, fabs(y[1])), z_p1 = power_less_one(pb, fabs(y[2]));
        dydt[0] = r_rate;
        dydt[1] = w;
        dydt[2] = z_rate;
        dydt[3] = -r_rate / pb->pi1 - pb->alpha * pb->p * pb->pi1 * y_p1 * w -
                  pb->alpha_c * pb->p * pb->pi1 * z_p1 * z_rate;
        return;
    }
    /* (X, V, Z) */
    dydt[0] = y[1];
    dydt[1] = kelvin_voigt_force(pb, y);
    dydt[2] = pb->law == LAW_BWSHC ? bouc_wen_rate(pb, y[2], y[1]) : 0.0;
}

double collision_force(const collision_problem *pb, const double *y)
{
    if (maxwell_type(pb))
        return -maxwell_rate(pb, y) / pb->pi1; /* F = V' = -R'/pi1 */
    return kelvin_voigt_force(pb, y);
}

double collision_velocity(const collision_problem *pb, const double *y)
{
    return maxwell_type(pb) ? maxwell_rate(pb, y) + y[3] : y[1]; /* V = R' + Y' */
}

double collision_displacement(const collision_problem *pb, const double *y)
{
    return maxwell_type(pb) ? y[0] + y[1] : y[0]; /* X = R + Y */
}

/* The energy balance. Along a solution of the Kelvin-Voigt type (BWSHC; the classical
 * laws have alpha = 1, alpha_c = 0),
 *   dE/dT = V F + alpha |X|^(p-1) X V + alpha_c |Z|^(p-1) Z Z'/A
 *         = -pi1 |X|^p V^2 + alpha_c |Z|^(p-1) Z (Z'/A - V),
 * and Z'/A - V = -pi2 |Z|^(n-1) Z |V| - pi3 |Z|^n V, so the last term is
 * -alpha_c (pi2 |Z|^(p+n) |V| + pi3 |Z|^(p+n-1) Z V) <= -alpha_c (pi2 - |pi3|) |Z|^(p+n) |V|
 * <= 0 because |pi3| < pi2. For the Maxwell type (BWMCM), with S = alpha |Y|^(p-1) Y +
 * alpha_c |Z|^(p-1) Z, F = -S, R' = pi1 S and V = R' + W:
 *   dE/dT = V F + alpha |Y|^(p-1) Y W + alpha_c |Z|^(p-1) Z Z'/A
 *         = -pi1 S^2 + alpha_c |Z|^(p-1) Z (Z'/A - W) <= 0
 * the same way. So E <= E(0) = 1/2 all along (the kinetic energy lost is at least what
 * the contact still stores), with equality throughout for hooke and hertz (pi1 = 0,
 * alpha_c = 0). Derived here, not taken from the paper. */
double collision_energy(const collision_problem *pb, const double *y)
{
    double v = collision_velocity(pb, y);
    double u = fabs(maxwell_type(pb) ? y[1] : y[0]);
    double energy =
        0.5 * v * v + pb->alpha * u * collision_power_eval(&pb->pow_p, u) / (pb->p + 1.0);
    if (pb->alpha_c > 0.0) {
        double z = fabs(y[2]);
        energy += pb->alpha_c * z * collision_power_eval(&pb->pow_p, z) / ((pb->p + 1.0) * pb->A);
    }
    return energy;
}

/* A stand-in for x^(1/p), x >= 0, for the force root: the root of sign(F) phi(|F|) is
 * F's for any increasing phi with phi(0) = 0, and phi only has to undo F's flat zero
 * |X|^p, so that root finders see a function close to linear there. Taking 1/p of the
 * distance of x's bit pattern from 1.0's (a piecewise linear log2) does that within a
 * few per cent, exactly monotone, in a few operations: a pow() per evaluation of the
 * root was a fifth of DOPRI5's time. */
double collision_root_power(double x, double p)
{
    if (!(x > 0.0))
        return x; /* 0 (and NaN) */
    const double one_bits = 4607182418800017408.0; /* 0x3ff0000000000000 */
    int64_t bits;
    memcpy(&bits, &x, sizeof bits);
    double scaled = ((double)bits - one_bits) / p + one_bits;
    int64_t out = (int64_t)scaled;
    double result;
    memcpy(&result, &out, sizeof result);
    return result;
}

void collision_events(const collision_problem *pb, const double *y, const double *given,
                      double *g, int sign_only)
{
    double computed[4];
    const double *dydt = given;
    /* BWSHC: |X|^p and |Z|^p once, for f and F' */
    int bwshc = pb->law == LAW_BWSHC;
    double xp = bwshc ? collision_power_eval(&pb->pow_p, fabs(y[0])) : 0.0;
    double zp = bwshc ? collision_power_eval(&pb->pow_p, fabs(y[2])) : 0.0;
    if (!dydt && bwshc) { /* collision_rhs, the same bits */
        computed[0] = y[1];
        computed[1] = bwshc_force(pb, y, xp, zp);
        computed[2] = bouc_wen_rate(pb, y[2], y[1]);
        dydt = computed;
    } else if (!dydt) {
        collision_rhs(pb, y, computed);
        dydt = computed;
    }
    double force, force_rate;
    int follows_x = collision_force_follows_x(pb);
    if (maxwell_type(pb)) {
        /* F = -(alpha |Y|^(p-1) Y + alpha_c |Z|^(p-1) Z), so
         * F' = -p (alpha |Y|^(p-1) Y' + alpha_c |Z|^(p-1) Z') */
        force = -dydt[0] / pb->pi1; /* dydt[0] = R' is maxwell_rate, the same bits */
        double y_p1 = power_less_one(pb, fabs(y[1])), z_p1 = power_less_one(pb, fabs(y[2]));
        force_rate = -pb->p * (pb->alpha * y_p1 * dydt[1] + pb->alpha_c * z_p1 * dydt[2]);
    } else if (follows_x) {
        /* hooke, hertz, hunt-crossley: F = |X|^p (1 - pi1 V) for X < 0 (pi1 = 0 for hooke
         * and hertz), and 1 - pi1 V = exp(-pi1 int |X|^p dT) > 0 exactly, so F has the
         * sign of -X. Where pi1 >> 1, V creeps towards 1/pi1 and 1 - pi1 V ~ exp(-pi1)
         * falls below the rounding of V long before X returns to 0: F and F' as computed
         * are then rounding noise, often exactly 0. With F's own sign the separation was
         * found at noise level (t_sep 3.9 instead of 23.1 at pi1 = 100), and exact zeros
         * of F' stopped CVODE's root finding (CV_ILL_INPUT). So both events use the
         * factors that carry the sign: the force root is -X, and, from
         * F' = -(1 - pi1 V) |X|^(p-1) (p V - pi1 X |X|^p) (derived here, X < 0), the
         * force-rate root is pi1 X |X|^p - p V. */
        force = dydt[1];
        force_rate = pb->pi1 * y[0] * collision_power_eval(&pb->pow_p, fabs(y[0])) -
                     pb->p * y[1];
    } else {
        force = dydt[1];
        /* F' by differentiating F(X, Z, V) along the flow */
        double x = y[0], v = y[1], z = y[2], ax = fabs(x), az = fabs(z);
        if (pb->law == LAW_KELVIN_VOIGT) {
            force_rate = -v - pb->pi1 * force;
        } else { /* LAW_BWSHC */
            double x_p1 = pb->p == 1.0 ? 1.0 : ax > 0.0 ? xp / ax : 0.0;
            double z_p1 = pb->p == 1.0 ? 1.0 : az > 0.0 ? zp / az : 0.0;
            double sx = x < 0.0 ? -1.0 : x > 0.0 ? 1.0 : 0.0;
            force_rate = -pb->alpha * pb->p * x_p1 * v - pb->alpha_c * pb->p * z_p1 * dydt[2] -
                         pb->pi1 * (pb->p * x_p1 * sx * v * v + xp * force);
        }
    }
    if (follows_x) {
        g[COLLISION_ROOT_FORCE] = -y[0];
    } else {
        double magnitude = pb->p == 1.0 || sign_only ? fabs(force)
                                                     : collision_root_power(fabs(force), pb->p);
        g[COLLISION_ROOT_FORCE] = force < 0.0 ? -magnitude : magnitude;
    }
    double velocity = maxwell_type(pb) ? dydt[0] + y[3] : y[1]; /* collision_velocity */
    g[COLLISION_ROOT_VELOCITY] = velocity;
    g[COLLISION_ROOT_FORCE_RATE] = force_rate;
    g[COLLISION_ROOT_KINK_W] = pb->law == LAW_BWM ? y[3] : 1.0;
    int rough = pb->p != 1.0; /* |u|^(p-1) u is smooth at 0 only for p = 1 (and odd p) */
    int has_z = pb->law == LAW_BWM || pb->law == LAW_BWSHC;
    g[COLLISION_ROOT_KINK_U] = rough ? (maxwell_type(pb) ? y[1] : y[0]) : 1.0;
    g[COLLISION_ROOT_KINK_Z] = has_z ? y[2] : 1.0; /* |Z|^n, |Z|^(p-1) Z */
    /* hooke and hertz keep V^2/2 + |X|^(p+1)/(p+1) = 1/2, so |V| or |F| stays of order 1:
     * they never come to rest, and rest_velocity does not apply to them. (The larger of
     * the two by a comparison, as the lanes compute it: fmax is a libm call.) */
    double av = fabs(velocity), af = fabs(force);
    g[COLLISION_ROOT_REST] = pb->conservative ? 1.0 : (av > af ? av : af) - pb->rest_velocity;
}

const int collision_root_direction[COLLISION_EVENTS] = {
    [COLLISION_ROOT_FORCE] = -1, [COLLISION_ROOT_VELOCITY] = 0, [COLLISION_ROOT_FORCE_RATE] = -1,
    [COLLISION_ROOT_KINK_W] = 0, [COLLISION_ROOT_KINK_U] = 0,   [COLLISION_ROOT_KINK_Z] = 0,
    [COLLISION_ROOT_REST] = -1,
};

/* --- what the events mean ------------------------------------------------------------ */

/* Records the energy at a state met on the way (any non-finite state is remembered). */
static void track_energy(collision_result *r, const collision_problem *pb, const double *y)
{
    double energy = collision_energy(pb, y);
    if (!isfinite(energy))
        r->nonfinite = 1;
    r->energy_max = fmax(r->energy_max, energy);
    r->energy_min = fmin(r->energy_min, energy);
}

/* The contact ended at state y (separation, rest or the horizon): its compression. */
static void track_end(collision_result *r, double compression)
{
    r->x_sep = compression;
    r->x_max = fmax(r->x_max, compression);
    if (!isfinite(compression))
        r->nonfinite = 1;
}

void collision_tracker_start(collision_tracker *tracker, const collision_problem *problem,
                             collision_result *result, const double *y0)
{
    tracker->problem = problem;
    tracker->result = result;
    result->outcome = OUTCOME_NO_SEPARATION;
    result->cor = 0.0;
    result->t_sep = NAN;
    result->x_sep = NAN;
    result->x_max = 0.0;
    result->f_max = fmax(0.0, collision_force(problem, y0)); /* Kelvin-Voigt jumps at contact */
    result->energy_max = result->energy_min = collision_energy(problem, y0);
    result->nonfinite = 0;
    result->steps = 0;
    result->solver_flag = 0;
    if (problem->hook) {
        collision_hook_sample(problem->hook, 0.0, y0);
        collision_hook_event(problem->hook, COLLISION_EVENT_CONTACT);
    }
}

/* crossed[i]: +1 when g[i] went up through zero at t, -1 down, 0 not. */
int collision_tracker_event(collision_tracker *tracker, double t, const double *y,
                            const int *crossed)
{
    const collision_problem *pb = tracker->problem;
    collision_result *r = tracker->result;
    double force = collision_force(pb, y), velocity = collision_velocity(pb, y);
    double compression = -collision_displacement(pb, y);
#ifdef DEBUG_EVENTS
    fprintf(stderr, "event t=%.12f crossed %d %d %d %d F=%.3e V=%.3e X=%.6f\n", t,
            crossed[COLLISION_ROOT_FORCE], crossed[COLLISION_ROOT_VELOCITY],
            crossed[COLLISION_ROOT_FORCE_RATE], crossed[COLLISION_ROOT_KINK_W], force, velocity,
            -compression);
#endif
    track_energy(r, pb, y);
    collision_hook *hook = pb->hook;
    if (hook)
        collision_hook_sample(hook, t, y);
    int velocity_root = crossed[COLLISION_ROOT_VELOCITY];
    if (velocity_root)
        r->x_max = fmax(r->x_max, compression); /* extremes of X are where V = 0 */
    if (hook && velocity_root)
        collision_hook_event(hook, velocity_root > 0 ? COLLISION_EVENT_MAX_COMPRESSION
                                                     : COLLISION_EVENT_MIN_COMPRESSION);
    if (crossed[COLLISION_ROOT_FORCE_RATE] < 0)
        r->f_max = fmax(r->f_max, force); /* a maximum of F */
    if (hook && crossed[COLLISION_ROOT_FORCE_RATE] < 0)
        collision_hook_event(hook, COLLISION_EVENT_FORCE_MAX);
    if (crossed[COLLISION_ROOT_REST] < 0) {
        /* At rest in the equilibrium set without having separated: e = 0. (Integrating
         * on would only chase rounding noise.) The compression there is permanent. */
        r->outcome = OUTCOME_NO_SEPARATION;
        r->cor = 0.0;
        track_end(r, compression);
        if (hook)
            collision_hook_event(hook, COLLISION_EVENT_REST);
        return 1;
    }
    /* Entering {F <= 0, V >= 0}: F falling to 0 with V >= 0, or V rising to 0 with
     * F <= 0. At the root the crossing quantity is 0 up to the root tolerance. */
    int separated = (crossed[COLLISION_ROOT_FORCE] < 0 && velocity >= 0.0) ||
                    (velocity_root > 0 && force <= 0.0);
    if (!separated) {
        if (hook && (crossed[COLLISION_ROOT_KINK_W] || crossed[COLLISION_ROOT_KINK_U] ||
                     crossed[COLLISION_ROOT_KINK_Z]))
            collision_hook_event(hook, COLLISION_EVENT_KINK);
        return 0;
    }
    track_end(r, compression);
    if (velocity < pb->rest_velocity) {
        /* Creeping into the equilibrium set: "separation" at noise level is rest. */
        r->outcome = OUTCOME_NO_SEPARATION;
        r->cor = 0.0;
        if (hook)
            collision_hook_event(hook, COLLISION_EVENT_REST);
        return 1;
    }
    r->outcome = OUTCOME_SEPARATED;
    r->cor = velocity;
    r->t_sep = t;
    if (hook)
        collision_hook_event(hook, COLLISION_EVENT_SEPARATION);
    return 1;
}

void collision_tracker_horizon(collision_tracker *tracker, double t, const double *y)
{
    collision_result *r = tracker->result;
    if (tracker->problem->hook) {
        collision_hook_sample(tracker->problem->hook, t, y);
        collision_hook_event(tracker->problem->hook, COLLISION_EVENT_HORIZON);
    }
    /* e = 0 by eq. (18), but only as far as the horizon reaches: said by the outcome */
    r->outcome = OUTCOME_HORIZON;
    r->cor = 0.0;
    track_energy(r, tracker->problem, y);
    track_end(r, -collision_displacement(tracker->problem, y));
}

/* --- the physical checks ------------------------------------------------------------- */

/* The energy balance holds to the accuracy of the states, which the integrators keep
 * within about rtol (their local tolerances are tighter, see collision_cvode.c and
 * collision_dopri5.c). Measured on 2800 random points of every law, form, integrator and
 * tolerance (pi1, pi2 over 1e-3..1e3, m, k, c, v0 over 6 to 15 decades): the rise of E
 * above 1/2, and for hooke and hertz |E - 1/2| and |e - 1|, stayed below 1.2 rtol (the
 * unit test's sample holds them to 3 rtol). A wrong result misses by far more. */
#define CHECK_TOLERANCE_RTOL 10.0
#define CHECK_TOLERANCE_FLOOR 1e-12

collision_check collision_check_result(const collision_problem *pb, const collision_result *r)
{
    int separated = r->outcome == OUTCOME_SEPARATED;
    double tol = fmax(CHECK_TOLERANCE_RTOL * pb->rtol, CHECK_TOLERANCE_FLOOR);
    if (r->nonfinite || !isfinite(r->cor) || !isfinite(r->x_max) || !isfinite(r->x_sep) ||
        !isfinite(r->f_max) || !isfinite(r->energy_max) || !isfinite(r->energy_min) ||
        (separated && !isfinite(r->t_sep)))
        return CHECK_NONFINITE;
    if (!(r->x_max >= 0.0) || !(r->f_max >= 0.0) || (separated && !(r->t_sep > 0.0)))
        return CHECK_SIGNS;
    if (!(r->cor >= 0.0 && r->cor <= 1.0 + tol) ||
        (pb->conservative && separated && !(fabs(r->cor - 1.0) <= tol)))
        return CHECK_COR;
    if (!(r->energy_max <= 0.5 + tol) || (pb->conservative && !(r->energy_min >= 0.5 - tol)))
        return CHECK_ENERGY;
    return CHECK_PASSED;
}
