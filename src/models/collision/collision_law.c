/* collision_law.c: the seven collision laws in nondimensional form (right-hand sides,
 * contact force, event functions), and what each event means for the collision: the
 * part both integrators share. */
#include "collision.h"

#include <math.h>
#include <stdio.h>

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

/* The Maxwell-type spring-dashpot rate R' = alpha pi1 |Y|^(p-1) Y + alpha_c pi1 |Z|^(p-1) Z. */
static double maxwell_rate(const collision_problem *pb, const double *y)
{
    return pb->pi1 * (pb->alpha * signed_power(&pb->pow_p, y[1]) +
                      pb->alpha_c * signed_power(&pb->pow_p, y[2]));
}

void collision_rhs(const collision_problem *pb, const double *y, double *dydt)
{
    if (maxwell_type(pb)) { /* (R, Y, Z, W) */
        double w = y[3];
        double r_rate = maxwell_rate(pb, y);
        double z_rate = pb->law == LAW_BWM ? bouc_wen_rate(pb, y[2], w) : 0.0;
        /* |Y|^(p-1) via |Y|^p / |Y|, which is 0 at Y = 0 for p > 1 and 1 for p = 1 */
        double ay = fabs(y[1]), az = fabs(y[2]);
        double y_p1 = pb->p == 1.0 ? 1.0 : ay > 0.0 ? collision_power_eval(&pb->pow_p, ay) / ay : 0.0;
        double z_p1 = pb->p == 1.0 ? 1.0 : az > 0.0 ? collision_power_eval(&pb->pow_p, az) / az : 0.0;
        dydt[0] = r_rate;
        dydt[1] = w;
        dydt[2] = z_rate;
        dydt[3] = -r_rate / pb->pi1 - pb->alpha * pb->p * pb->pi1 * y_p1 * w -
                  pb->alpha_c * pb->p * pb->pi1 * z_p1 * z_rate;
        return;
    }
    /* (X, V, Z) */
    double x = y[0], v = y[1], z = y[2];
    dydt[0] = v;
    switch (pb->law) {
    case LAW_HOOKE:
        dydt[1] = -x;
        dydt[2] = 0.0;
        break;
    case LAW_KELVIN_VOIGT:
        dydt[1] = -x - pb->pi1 * v;
        dydt[2] = 0.0;
        break;
    case LAW_HERTZ:
        dydt[1] = -signed_power(&pb->pow_p, x);
        dydt[2] = 0.0;
        break;
    case LAW_HUNT_CROSSLEY: {
        double xp = collision_power_eval(&pb->pow_p, fabs(x));
        dydt[1] = -(x < 0.0 ? -xp : xp) - pb->pi1 * xp * v;
        dydt[2] = 0.0;
        break;
    }
    default: { /* LAW_BWSHC */
        double xp = collision_power_eval(&pb->pow_p, fabs(x));
        dydt[1] = -pb->alpha * (x < 0.0 ? -xp : xp) - pb->alpha_c * signed_power(&pb->pow_p, z) -
                  pb->pi1 * xp * v;
        dydt[2] = bouc_wen_rate(pb, z, v);
        break;
    }
    }
}

double collision_force(const collision_problem *pb, const double *y)
{
    if (maxwell_type(pb))
        return -maxwell_rate(pb, y) / pb->pi1; /* F = V' = -R'/pi1 */
    double dydt[4];
    collision_rhs(pb, y, dydt);
    return dydt[1];
}

double collision_velocity(const collision_problem *pb, const double *y)
{
    return maxwell_type(pb) ? maxwell_rate(pb, y) + y[3] : y[1]; /* V = R' + Y' */
}

double collision_displacement(const collision_problem *pb, const double *y)
{
    return maxwell_type(pb) ? y[0] + y[1] : y[0]; /* X = R + Y */
}

void collision_events(const collision_problem *pb, const double *y, const double *given,
                      double *g, int sign_only)
{
    double computed[4];
    const double *dydt = given;
    if (!dydt) {
        collision_rhs(pb, y, computed);
        dydt = computed;
    }
    double force, force_rate;
    if (maxwell_type(pb)) {
        /* F = -(alpha |Y|^(p-1) Y + alpha_c |Z|^(p-1) Z), so
         * F' = -p (alpha |Y|^(p-1) Y' + alpha_c |Z|^(p-1) Z') */
        force = -maxwell_rate(pb, y) / pb->pi1;
        double ay = fabs(y[1]), az = fabs(y[2]);
        double y_p1 = pb->p == 1.0 ? 1.0 : ay > 0.0 ? collision_power_eval(&pb->pow_p, ay) / ay : 0.0;
        double z_p1 = pb->p == 1.0 ? 1.0 : az > 0.0 ? collision_power_eval(&pb->pow_p, az) / az : 0.0;
        force_rate = -pb->p * (pb->alpha * y_p1 * dydt[1] + pb->alpha_c * z_p1 * dydt[2]);
    } else {
        force = dydt[1];
        /* F' by differentiating F(X, Z, V) along the flow */
        double x = y[0], v = y[1], z = y[2], ax = fabs(x), az = fabs(z);
        double x_p1 = pb->p == 1.0 ? 1.0 : ax > 0.0 ? collision_power_eval(&pb->pow_p, ax) / ax : 0.0;
        double z_p1 = pb->p == 1.0 ? 1.0 : az > 0.0 ? collision_power_eval(&pb->pow_p, az) / az : 0.0;
        double xp = collision_power_eval(&pb->pow_p, ax);
        double sx = x < 0.0 ? -1.0 : x > 0.0 ? 1.0 : 0.0;
        switch (pb->law) {
        case LAW_HOOKE: force_rate = -v; break;
        case LAW_KELVIN_VOIGT: force_rate = -v - pb->pi1 * force; break;
        case LAW_HERTZ: force_rate = -pb->p * x_p1 * v; break;
        case LAW_HUNT_CROSSLEY:
            force_rate = -pb->p * x_p1 * v - pb->pi1 * (pb->p * x_p1 * sx * v * v + xp * force);
            break;
        default:
            force_rate = -pb->alpha * pb->p * x_p1 * v - pb->alpha_c * pb->p * z_p1 * dydt[2] -
                         pb->pi1 * (pb->p * x_p1 * sx * v * v + xp * force);
            break;
        }
    }
    double magnitude = pb->p == 1.0 || sign_only ? fabs(force) : pow(fabs(force), 1.0 / pb->p);
    g[0] = force < 0.0 ? -magnitude : magnitude;
    g[1] = collision_velocity(pb, y);
    g[2] = force_rate;
    g[3] = pb->law == LAW_BWM ? y[3] : 1.0;
    int rough = pb->p != 1.0; /* |u|^(p-1) u is smooth at 0 only for p = 1 (and odd p) */
    int has_z = pb->law == LAW_BWM || pb->law == LAW_BWSHC;
    g[4] = rough ? (maxwell_type(pb) ? y[1] : y[0]) : 1.0;
    g[5] = has_z ? y[2] : 1.0; /* |Z|^n, |Z|^(p-1) Z */
    g[6] = fmax(fabs(g[1]), fabs(force)) - pb->rest_velocity;
}

/* --- what the events mean ------------------------------------------------------------ */

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
    result->steps = 0;
    result->solver_flag = 0;
    result->budget = 0;
}

/* crossed[i]: +1 when g[i] went up through zero at t, -1 down, 0 not. */
int collision_tracker_event(collision_tracker *tracker, double t, const double *y,
                            const int *crossed)
{
    const collision_problem *pb = tracker->problem;
    collision_result *r = tracker->result;
    double force = collision_force(pb, y), velocity = collision_velocity(pb, y);
    double x = collision_displacement(pb, y);
#ifdef DEBUG_EVENTS
    fprintf(stderr, "event t=%.12f crossed %d %d %d %d F=%.3e V=%.3e X=%.6f\n", t, crossed[0], crossed[1], crossed[2], crossed[3], force, velocity, x);
#endif
    if (crossed[1])
        r->x_max = fmax(r->x_max, fabs(x)); /* extremes of X are where V = 0 */
    if (crossed[2] < 0)
        r->f_max = fmax(r->f_max, force); /* a maximum of F */
    if (crossed[6] < 0) {
        /* At rest in the equilibrium set without having separated: e = 0. (Integrating
         * on would only chase rounding noise.) */
        r->outcome = OUTCOME_NO_SEPARATION;
        r->cor = 0.0;
        return 1;
    }
    /* Entering {F <= 0, V >= 0}: F falling to 0 with V >= 0, or V rising to 0 with
     * F <= 0. At the root the crossing quantity is 0 up to the root tolerance. */
    int separated = (crossed[0] < 0 && velocity >= 0.0) || (crossed[1] > 0 && force <= 0.0);
    if (!separated)
        return 0;
    if (velocity < pb->rest_velocity) {
        /* Creeping into the equilibrium set: "separation" at noise level is rest. */
        r->outcome = OUTCOME_NO_SEPARATION;
        r->cor = 0.0;
        return 1;
    }
    r->outcome = OUTCOME_SEPARATED;
    r->cor = velocity;
    r->t_sep = t;
    r->x_sep = x;
    r->x_max = fmax(r->x_max, fabs(x));
    return 1;
}

void collision_tracker_horizon(collision_tracker *tracker)
{
    tracker->result->outcome = OUTCOME_NO_SEPARATION; /* e = 0 by eq. (18) */
    tracker->result->cor = 0.0;
}
