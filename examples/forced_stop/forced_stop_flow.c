/* forced_stop_flow.c: the closed-form free flight of the forced linear oscillator and the
 * first-contact search, which steps by a rigorous upper bound of x - delta so that a
 * contact cannot be stepped over (the method of the stop oscillator's stop_flow.c). */
#include "forced_stop.h"

#include <float.h>
#include <math.h>

/* The search gives up after this many steps (a flight of a whole forcing period takes a
 * few dozen steps per natural period away from the stop, and ~50 at a grazing). */
#define FS_SEARCH_LIMIT 10000000

void fs_system_init(fs_system *sys, double omega, double zeta, double A, double delta, double r)
{
    sys->omega = omega;
    sys->zeta = zeta;
    sys->A = A;
    sys->delta = delta;
    sys->r = r;
    sys->wd = sqrt(1.0 - zeta * zeta);
    /* x_p = Re(A e^{i omega t} / D), D = 1 - omega^2 + 2 i zeta omega */
    double re = 1.0 - omega * omega, im = 2.0 * zeta * omega, d2 = re * re + im * im;
    sys->pc = A * re / d2;
    sys->ps = A * im / d2;
    sys->X = A / sqrt(d2);
    sys->T = 2.0 * M_PI / omega;
    /* at rest on the stop the force is A cos(phase) - delta: it pushes into the stop for
     * cos(phase) > delta / A, and lets go where cos falls through delta / A */
    double c = delta / A;
    sys->phase_release = c >= 1.0 ? NAN : c <= -1.0 ? INFINITY : acos(c);
    sys->scale = fabs(delta) + sys->X;
}

void fs_steady(const fs_system *sys, double phase, double *xp, double *vp)
{
    double c = cos(phase), s = sin(phase);
    *xp = sys->pc * c + sys->ps * s;
    *vp = sys->omega * (sys->ps * c - sys->pc * s);
}

void fs_flight_start(const fs_system *sys, double x, double v, double phase, fs_flight *f)
{
    double xp, vp;
    fs_steady(sys, phase, &xp, &vp);
    f->y0 = x - xp;
    f->dy0 = v - vp;
    f->b = (f->dy0 + sys->zeta * f->y0) / sys->wd;
    f->amp = sqrt(f->y0 * f->y0 + f->b * f->b);
    f->phase0 = phase;
    f->reach = 64.0 * DBL_EPSILON * (fabs(sys->delta) + f->amp + sys->X);
}

void fs_flight_at(const fs_system *sys, const fs_flight *f, double s, double *x, double *v,
                  double *acc)
{
    double e = sys->zeta > 0.0 ? exp(-sys->zeta * s) : 1.0;
    double c = cos(sys->wd * s), sn = sin(sys->wd * s);
    /* y = e (y0 c + b sn); y' = e (y0' c - (y0 + zeta y0') / wd sn), using zeta^2 + wd^2 = 1 */
    double y = e * (f->y0 * c + f->b * sn);
    double dy = e * (f->dy0 * c - (f->y0 + sys->zeta * f->dy0) / sys->wd * sn);
    double xp, vp;
    fs_steady(sys, f->phase0 + sys->omega * s, &xp, &vp);
    *x = y + xp;
    *v = dy + vp;
    *acc = -y - 2.0 * sys->zeta * dy - sys->omega * sys->omega * xp;
}

double fs_relative_energy(const fs_system *sys, double x, double v, double phase)
{
    double xp, vp;
    fs_steady(sys, phase, &xp, &vp);
    return 0.5 * ((x - xp) * (x - xp) + (v - vp) * (v - vp));
}

int fs_flight_is_free(const fs_system *sys, const fs_flight *f)
{
    /* x <= |y| + |x_p| <= amp + X for the whole future of the flight */
    return f->amp + sys->X + f->reach < sys->delta;
}

/* The smallest tau > 0 with g + dg tau + c tau^2 / 2 = 0 (g < 0), or INFINITY. */
static double first_root_of_bound(double g, double dg, double c)
{
    double disc = dg * dg - 2.0 * c * g;
    if (disc < 0.0)
        return INFINITY;
    if (dg > 0.0)
        return -2.0 * g / (dg + sqrt(disc)); /* the stable form */
    if (c > 0.0)
        return (-dg + sqrt(disc)) / c;
    return INFINITY; /* falling and bending down: the bound never comes back to 0 */
}

int fs_first_contact(const fs_system *sys, const fs_flight *f, double horizon, double *s_hit,
                     double *x, double *v, int64_t *evaluations)
{
    /* Along the flight |y''|, |y'''| <= amp e^{-zeta s} and |x_p''| <= X omega^2,
     * |x_p'''| <= X omega^3. Over [t, t + h], g'' <= min(m2, g''(t) + m3 h) (the envelope
     * only shrinks), so the quadratic with that curvature bounds g = x - delta from above
     * there: until it reaches 0, g cannot. */
    const double fast = fmax(1.0, sys->omega);
    const double xp2 = sys->X * sys->omega * sys->omega, xp3 = xp2 * sys->omega;
    const double reach = f->reach;
    double t = 0.0, ddg;
    fs_flight_at(sys, f, 0.0, x, v, &ddg);
    double g = *x - sys->delta, dg = *v;
    /* the first trial length: a little more than the flight under the present force when
     * it pulls the mass back to the stop (the short flights of a chatter) */
    double h = dg < 0.0 && ddg > 0.0 ? fmin(3.0 * -dg / ddg, 0.25 / fast) : 0.25 / fast;
    /* Starting at the stop (after an impact or a release) the start itself is no contact:
     * one counts once the mass has been away, or when it comes back in. */
    int away = g < -reach;
    for (int iter = 0; iter < FS_SEARCH_LIMIT; iter++) {
        if (t > 0.0 && g >= -reach && (away || dg > 0.0)) {
            *s_hit = t; /* at the stop, to rounding */
            return 1;
        }
        double env = sys->zeta > 0.0 ? f->amp * exp(-sys->zeta * t) : f->amp;
        double c = fmin(env + xp2, ddg + (env + xp3) * h);
        /* Until the mass has left the rounding band at the stop, the band itself is the
         * start: bounding from its edge lets the steps grow as the motion away develops
         * (after a release, x - delta ~ -s^3 stays 0 to rounding for a while). */
        double r = first_root_of_bound(away ? fmin(g, -DBL_MIN) : fmin(g, 0.0) - reach, dg, c);
        double step = fmin(r, h);
        if (t + step >= horizon) {
            if (r >= horizon - t)
                return 0; /* no contact can happen before the horizon */
            step = horizon - t;
        }
        t += step;
        fs_flight_at(sys, f, t, x, v, &ddg);
        g = *x - sys->delta;
        dg = *v;
        (*evaluations)++;
        away |= g < -reach;
        if (g > 0.0 && away) { /* only rounding can get here: the bound says g <= 0 */
            *s_hit = t;
            return 1;
        }
        /* keep the trial length near the step the bound allows, so that m3 h stays small
         * near a contact (fast convergence), and let it grow away from one */
        h = r < h ? fmax(2.0 * r, DBL_MIN) : fmin(2.0 * h, 1.0 / fast);
    }
    return -1;
}
