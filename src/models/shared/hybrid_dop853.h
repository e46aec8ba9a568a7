/* hybrid_dop853.h: the Dormand-Prince 8(5,3) pair (DOP853) of is_hybrid_run's field mode
 * (is_hybrid_system.pair = IS_HYBRID_DOP853; included by hybrid_steps.h; private names
 * begin with ish8_): a trial step of every block, the step size factor, and the pair's
 * continuous extension of order 7 for event location.
 *
 * The coefficients are Hairer's (E. Hairer, S. P. Norsett, G. Wanner, Solving Ordinary
 * Differential Equations I, 2nd ed., Springer 1993, section II.10; the code dop853.f of
 * 11 Oct 2004 at http://www.unige.ch/~hairer/software.html), as scipy carries them in
 * scipy/integrate/_ivp/dop853_coefficients.py (same digits). tests/unit/test_hybrid.c
 * checks the orders numerically: the step's error falls by 2^8 when h halves (order 8
 * locally 9, a non-autonomous problem), the dense output's by 2^8 too (order 7).
 *
 * A step takes 12 evaluations: 11 stages and f at the solution (first same as last: the
 * next step's first stage, and the events' rates at the step's end). The error is
 * Hairer's, the 5th-order estimate scaled by the 3rd-order one, err = |h| e5^2 /
 * sqrt(n (e5^2 + 0.01 e3^2)) with e5^2, e3^2 the sums of squares of the weighted
 * errors; the controller takes 0.9 err^(-1/8).
 *
 * The continuous extension: why order 7 (3 more evaluations) and not a cheaper one. An
 * event's time is located on it, and the state there is reported (observed events) or
 * the step is redone to it (landings). A Hermite quintic of the ends' values and slopes
 * is only O(h^6) and, at the long steps DOP853 takes at rtol 1e-8 (h^8 ~ tol), its error
 * is far above the tolerance; Hairer's order-7 extension keeps the located time and the
 * observed state at the step's accuracy. Its 3 evaluations are made only where a step is
 * searched for events (a crossing or a suspected graze), a few steps a point. They run
 * on a copy of the lanes' view, so that aux stays that of the step's end.
 *
 * Stage storage: trial.k[] holds Hairer's K_j (j < 12) with K_6 and K_12 = f(t + h,
 * y1) swapped, so that k[6] is f at the step's end for both pairs (the driver reads it
 * there). */
#ifndef IMPACTSWEEP_HYBRID_DOP853_H
#define IMPACTSWEEP_HYBRID_DOP853_H

/* the pair in use: DOPRI5 where the system has tangents (hybrid_lyapunov.h steps them
 * with DOPRI5's stages) */
#define ISH8_ON(sys) ((sys)->pair == IS_HYBRID_DOP853 && (sys)->field && !(sys)->lyapunov)
#define ISH8_SLOT(j) ((j) == 6 ? 12 : (j) == 12 ? 6 : (j)) /* K_j's place in trial.k */

static const double ish8_c[16] = {
    0.0, 0.526001519587677318785587544488e-01, 0.789002279381515978178381316732e-01,
    0.118350341907227396726757197510, 0.281649658092772603273242802490,
    0.333333333333333333333333333333, 0.25, 0.307692307692307692307692307692,
    0.651282051282051282051282051282, 0.6, 0.857142857142857142857142857142, 1.0, 1.0, 0.1,
    0.2, 0.777777777777777777777777777778};

/* rows 1-11: the stages; row 12: the 8th-order weights (the solution); rows 13-15: the
 * extra stages of the continuous extension */
static const double ish8_a[16][15] = {
    {0},
    {5.26001519587677318785587544488e-2},
    {1.97250569845378994544595329183e-2, 5.91751709536136983633785987549e-2},
    {2.95875854768068491816892993775e-2, 0, 8.87627564304205475450678981324e-2},
    {2.41365134159266685502369798665e-1, 0, -8.84549479328286085344864962717e-1,
     9.24834003261792003115737966543e-1},
    {3.7037037037037037037037037037e-2, 0, 0, 1.70828608729473871279604482173e-1,
     1.25467687566822425016691814123e-1},
    {3.7109375e-2, 0, 0, 1.70252211019544039314978060272e-1,
     6.02165389804559606850219397283e-2, -1.7578125e-2},
    {3.70920001185047927108779319836e-2, 0, 0, 1.70383925712239993810214054705e-1,
     1.07262030446373284651809199168e-1, -1.53194377486244017527936158236e-2,
     8.27378916381402288758473766002e-3},
    {6.24110958716075717114429577812e-1, 0, 0, -3.36089262944694129406857109825,
     -8.68219346841726006818189891453e-1, 2.75920996994467083049415600797e1,
     2.01540675504778934086186788979e1, -4.34898841810699588477366255144e1},
    {4.77662536438264365890433908527e-1, 0, 0, -2.48811461997166764192642586468,
     -5.90290826836842996371446475743e-1, 2.12300514481811942347288949897e1,
     1.52792336328824235832596922938e1, -3.32882109689848629194453265587e1,
     -2.03312017085086261358222928593e-2},
    {-9.3714243008598732571704021658e-1, 0, 0, 5.18637242884406370830023853209,
     1.09143734899672957818500254654, -8.14978701074692612513997267357,
     -1.85200656599969598641566180701e1, 2.27394870993505042818970056734e1,
     2.49360555267965238987089396762, -3.0467644718982195003823669022},
    {2.27331014751653820792359768449, 0, 0, -1.05344954667372501984066689879e1,
     -2.00087205822486249909675718444, -1.79589318631187989172765950534e1,
     2.79488845294199600508499808837e1, -2.85899827713502369474065508674,
     -8.87285693353062954433549289258, 1.23605671757943030647266201528e1,
     6.43392746015763530355970484046e-1},
    {5.42937341165687622380535766363e-2, 0, 0, 0, 0, 4.45031289275240888144113950566,
     1.89151789931450038304281599044, -5.8012039600105847814672114227,
     3.1116436695781989440891606237e-1, -1.52160949662516078556178806805e-1,
     2.01365400804030348374776537501e-1, 4.47106157277725905176885569043e-2},
    {5.61675022830479523392909219681e-2, 0, 0, 0, 0, 0, 2.53500210216624811088794765333e-1,
     -2.46239037470802489917441475441e-1, -1.24191423263816360469010140626e-1,
     1.5329179827876569731206322685e-1, 8.20105229563468988491666602057e-3,
     7.56789766054569976138603589584e-3, -8.298e-3},
    {3.18346481635021405060768473261e-2, 0, 0, 0, 0, 2.83009096723667755288322961402e-2,
     5.35419883074385676223797384372e-2, -5.49237485713909884646569340306e-2, 0, 0,
     -1.08347328697249322858509316994e-4, 3.82571090835658412954920192323e-4,
     -3.40465008687404560802977114492e-4, 1.41312443674632500278074618366e-1},
    {-4.28896301583791923408573538692e-1, 0, 0, 0, 0, -4.69762141536116384314449447206,
     7.68342119606259904184240953878, 4.06898981839711007970213554331,
     3.56727187455281109270669543021e-1, 0, 0, 0, -1.39902416515901462129418009734e-3,
     2.9475147891527723389556272149, -9.15095847217987001081870187138}};

/* the 3rd-order weights (bhh) subtracted from the 8th-order ones: e3 = b - bhh */
static const double ish8_bhh[12] = {0.244094488188976377952755905512, 0, 0, 0, 0, 0, 0, 0,
                                    0.733846688281611857341361741547, 0, 0,
                                    0.220588235294117647058823529412e-1};
/* the 5th-order error weights */
static const double ish8_e5[12] = {
    0.1312004499419488073250102996e-1, 0, 0, 0, 0, -0.1225156446376204440720569753e1,
    -0.4957589496572501915214079952, 0.1664377182454986536961530415e1,
    -0.3503288487499736816886487290, 0.3341791187130174790297318841,
    0.8192320648511571246570742613e-1, -0.2235530786388629525884427845e-1};

/* the continuous extension's last four coefficients (Hairer's d4..d7), over K_0..K_15 */
static const double ish8_d[4][16] = {
    {-0.84289382761090128651353491142e1, 0, 0, 0, 0, 0.56671495351937776962531783590,
     -0.30689499459498916912797304727e1, 0.23846676565120698287728149680e1,
     0.21170345824450282767155149946e1, -0.87139158377797299206789907490,
     0.22404374302607882758541771650e1, 0.63157877876946881815570249290,
     -0.88990336451333310820698117400e-1, 0.18148505520854727256656404962e2,
     -0.91946323924783554000451984436e1, -0.44360363875948939664310572000e1},
    {0.10427508642579134603413151009e2, 0, 0, 0, 0, 0.24228349177525818288430175319e3,
     0.16520045171727028198505394887e3, -0.37454675472269020279518312152e3,
     -0.22113666853125306036270938578e2, 0.77334326684722638389603898808e1,
     -0.30674084731089398182061213626e2, -0.93321305264302278729567221706e1,
     0.15697238121770843886131091075e2, -0.31139403219565177677282850411e2,
     -0.93529243588444783865713862664e1, 0.35816841486394083752465898540e2},
    {0.19985053242002433820987653617e2, 0, 0, 0, 0, -0.38703730874935176555105901742e3,
     -0.18917813819516756882830838328e3, 0.52780815920542364900561016686e3,
     -0.11573902539959630126141871134e2, 0.68812326946963000169666922661e1,
     -0.10006050966910838403183860980e1, 0.77771377980534432092869265740,
     -0.27782057523535084065932004339e1, -0.60196695231264120758267380846e2,
     0.84320405506677161018159903784e2, 0.11992291136182789328035130030e2},
    {-0.25693933462703749003312586129e2, 0, 0, 0, 0, -0.15418974869023643374053993627e3,
     -0.23152937917604549567536039109e3, 0.35763911791061412378285349910e3,
     0.93405324183624310003907691704e2, -0.37458323136451633156875139351e2,
     0.10409964950896230045147246184e3, 0.29840293426660503123344363579e2,
     -0.43533456590011143754432175058e2, 0.96324553959188282948394950600e2,
     -0.39177261675615439165231486172e2, -0.14972683625798562581422125276e3}};

/* One DOP853 trial step of each of the nb blocks, stage by stage across them (as
 * ish_trial_steps_field: a second block's stage fills the first one's waits). */
ISH_INLINE void ish8_trial_steps(const is_hybrid_system *sys, ish_block *const *bs, int nb,
                                 ish_trial *tr)
{
    const int d = sys->dimension;
    lv_double s[ISH_D];
    for (int j = 0; j < nb; j++) {
        tr[j].h = bs[j]->h;
        for (int i = 0; i < d; i++)
            tr[j].k[0][i] = bs[j]->f[i];
    }
    /* stages 1-11, then (12) the solution y1 and f there */
#pragma GCC unroll 12
    for (int st = 1; st < 13; st++)
#pragma GCC unroll 4
        for (int j = 0; j < nb; j++) {
            ish_block *b = bs[j];
            ish_trial *T = &tr[j];
#pragma GCC unroll 8
            for (int i = 0; i < d; i++) {
                lv_double sum = ish8_a[st][0] * T->k[0][i];
#pragma GCC unroll 12
                for (int q = 1; q < st; q++)
                    if (ish8_a[st][q] != 0.0)
                        sum = sum + ish8_a[st][q] * T->k[ISH8_SLOT(q)][i];
                s[i] = b->y[i] + T->h * sum;
            }
            if (st == 12)
                for (int i = 0; i < d; i++)
                    T->y1[i] = s[i];
            sys->field(&b->pub, b->t + ish8_c[st] * T->h, s, T->k[ISH8_SLOT(st)]);
        }
    for (int j = 0; j < nb; j++) {
        const ish_block *b = bs[j];
        ish_trial *T = &tr[j];
        lv_double sum5 = lv_zero(), sum3 = lv_zero();
        for (int i = 0; i < d; i++) {
            lv_double e5 = ish8_e5[0] * T->k[0][i];
            lv_double e3 = (ish8_a[12][0] - ish8_bhh[0]) * T->k[0][i];
#pragma GCC unroll 12
            for (int q = 5; q < 12; q++) {
                e5 = e5 + ish8_e5[q] * T->k[ISH8_SLOT(q)][i];
                e3 = e3 + (ish8_a[12][q] - ish8_bhh[q]) * T->k[ISH8_SLOT(q)][i];
            }
            lv_double scale = b->atol + b->rtol * lv_max_nanb(lv_abs(b->y[i]), lv_abs(T->y1[i]));
            lv_double r5 = e5 / scale, r3 = e3 / scale;
            sum5 = sum5 + r5 * r5;
            sum3 = sum3 + r3 * r3;
        }
        /* err^2 = h^2 e5^4 / (n (e5^2 + 0.01 e3^2)); DBL_MIN keeps 0 / 0 at 0 (a NaN stays) */
        lv_double denom = (double)d * (sum5 + 0.01 * sum3) + DBL_MIN;
        T->err2 = (T->h * T->h) * sum5 * (sum5 / denom);
    }
}

/* The controller's factor 0.9 err^(-1/8) from err2 = err^2: x^(-1/16), as ish_factor
 * does x^(-1/10) (within about 1%). */
ISH_INLINE lv_double ish8_factor(lv_double err2)
{
    lv_double x = lv_min_nanb(lv_max_nanb(err2, lv_splat(1e-30)), lv_splat(1e30));
    lv_int bits = lv_as_int(x);
    lv_double m = lv_as_double((bits & 0x000fffffffffffff) | 0x3ff0000000000000);
    lv_double e = (lv_as_double((bits >> 52) | 0x4330000000000000) - 0x1p52) - 1023.0;
    lv_double y = -0.0625 * (e + (m - 1.0)); /* ~ log2 x^(-1/16), in [-7, 7] */
    lv_double n = (y + 0x1.8p52) - 0x1.8p52;
    n = lv_sel(lv_gt(n, y), n - 1.0, n);
    lv_double f = y - n;
    lv_double two_n = lv_as_double((lv_as_int(n + 0x1.8p52) - lv_as_int(lv_splat(0x1.8p52)) +
                                    1023) << 52);
    return 0.9 * two_n * (1.0 + f * (0.6565 + 0.3435 * f));
}

/* The continuous extension of a trial step: y(theta) = r0 + theta (r1 + (1 - theta) (r2 +
 * theta (r3 + (1 - theta) (r4 + theta (r5 + (1 - theta) (r6 + theta r7)))))) (Hairer's
 * contd8), from the step's stages and 3 more. */
ISH_INLINE void ish8_dense_init(const is_hybrid_system *sys, const ish_block *b,
                                const ish_trial *T, lv_double (*r)[ISH_D])
{
    const int d = sys->dimension;
    is_hybrid_lanes view = b->pub; /* the field's aux stays the step end's */
    lv_double kx[3][ISH_D], s[ISH_D];
    for (int i = 0; i < ISH_D; i++) /* (the field reads only d of them) */
        s[i] = lv_zero();
#pragma GCC unroll 3
    for (int st = 13; st < 16; st++) {
        for (int i = 0; i < d; i++) {
            lv_double sum = ish8_a[st][0] * T->k[0][i];
#pragma GCC unroll 14
            for (int q = 1; q < st; q++)
                if (ish8_a[st][q] != 0.0)
                    sum = sum + ish8_a[st][q] * (q < 13 ? T->k[ISH8_SLOT(q)][i] : kx[q - 13][i]);
            s[i] = b->y[i] + T->h * sum;
        }
        sys->field(&view, b->t + ish8_c[st] * T->h, s, kx[st - 13]);
    }
    for (int i = 0; i < d; i++) {
        lv_double ydiff = T->y1[i] - b->y[i], bspl = T->h * T->k[0][i] - ydiff;
        r[0][i] = b->y[i];
        r[1][i] = ydiff;
        r[2][i] = bspl;
        r[3][i] = ydiff - T->h * T->k[ISH8_SLOT(12)][i] - bspl;
#pragma GCC unroll 4
        for (int row = 0; row < 4; row++) {
            lv_double sum = ish8_d[row][0] * T->k[0][i];
#pragma GCC unroll 16
            for (int q = 5; q < 16; q++)
                sum = sum + ish8_d[row][q] * (q < 13 ? T->k[ISH8_SLOT(q)][i] : kx[q - 13][i]);
            r[4 + row][i] = T->h * sum;
        }
    }
}

ISH_INLINE void ish8_dense_at(const is_hybrid_system *sys, const lv_double *r, lv_double theta,
                              lv_double *y)
{
    lv_double rest = 1.0 - theta;
#define ISH8_R(row) r[(row) * ISH_D + i]
    for (int i = 0; i < sys->dimension; i++)
        y[i] = ISH8_R(0) +
               theta * (ISH8_R(1) +
                        rest * (ISH8_R(2) +
                                theta * (ISH8_R(3) +
                                         rest * (ISH8_R(4) +
                                                 theta * (ISH8_R(5) +
                                                          rest * (ISH8_R(6) +
                                                                  theta * ISH8_R(7)))))));
#undef ISH8_R
}

#endif
