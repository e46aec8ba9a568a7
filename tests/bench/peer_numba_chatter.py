"""peer_numba_chatter.py: the chatter benchmark as a researcher writes it by hand, a scalar
numba loop (the peer of bench_chatter in issue 13). Regular n-gon, drops p0 = (R1, R2, -1),
q0 = (R3, R4, 1 + R5), R uniform on (0, 0.1); exact flights and Newton impacts until p_3 >= 0
(ICC) or the budget (CC, or PCC when two adjacent vertices come to rest).
Usage: peer_numba_chatter.py [n rho gamma drops max_impacts reps]. Prints impacts per
second of wall-clock time (median of the repeats) and of this thread's CPU time."""
import sys, time, math
import numpy as np
from numba import njit

@njit(cache=False)
def drops(n, rho, gamma, r, budget, counts):
    fx = np.array([math.sin(2 * math.pi * i / n) for i in range(n)])   # f_i = (y_i, -x_i, 1)
    fy = np.array([-math.cos(2 * math.pi * i / n) for i in range(n)])
    c_rot, c_h = (1 + gamma) / (1 + rho * rho), (1 + gamma) * rho * rho / (1 + rho * rho)
    total = 0
    for d in range(r.shape[0]):
        p0, p1, p2 = r[d, 0], r[d, 1], -1.0
        q0, q1, q2 = r[d, 2], r[d, 3], 1.0 + r[d, 4]
        last, k, outcome = -1, 0, 1                     # 0 ICC, 1 CC, 2 PCC
        while k < budget:
            nxt, t_min = -1, np.inf
            for j in range(n):
                fp = fx[j] * p0 + fy[j] * p1 + p2
                if j != last and fp < 0:
                    t = max((fx[j] * q0 + fy[j] * q1 + q2) / -fp, 0.0)
                    if t < t_min:
                        nxt, t_min = j, t
            if nxt < 0:
                outcome = 0
                break
            q0 += t_min * p0; q1 += t_min * p1; q2 += t_min * p2
            fp = fx[nxt] * p0 + fy[nxt] * p1 + p2
            p0 -= c_rot * fp * fx[nxt]; p1 -= c_rot * fp * fy[nxt]; p2 -= c_h * fp
            last, k = nxt, k + 1
            if p2 >= 0:
                outcome = 0
                break
            if abs(p2) < 2.0 ** -500:                   # q and p shrink geometrically
                p0 *= 2.0 ** 500; p1 *= 2.0 ** 500; p2 *= 2.0 ** 500
            if abs(q2) < 2.0 ** -500:
                q0 *= 2.0 ** 500; q1 *= 2.0 ** 500; q2 *= 2.0 ** 500
        if outcome == 1 and n > 2:                      # PCC: two adjacent vertices at rest
            for j in range(n):
                a = fx[j] * p0 + fy[j] * p1 + p2
                b = fx[(j + 1) % n] * p0 + fy[(j + 1) % n] * p1 + p2
                if abs(a) < 1e-6 * abs(p2) and abs(b) < 1e-6 * abs(p2):
                    outcome = 2
        counts[outcome] += 1
        total += k
    return total

a = [float(x) for x in sys.argv[1:]] + [4, 0.3, 0.1, 20000, 200, 5][len(sys.argv) - 1:]
n, rho, gamma, ndrops, budget, reps = int(a[0]), a[1], a[2], int(a[3]), int(a[4]), int(a[5])
r = 0.1 * np.random.default_rng(1).random((ndrops, 5))
drops(n, rho, gamma, r[:10], budget, np.zeros(3, np.int64))  # compile outside the timing
rates, cpu_rates = [], []
for _ in range(reps):
    counts = np.zeros(3, np.int64)
    start, cpu = time.perf_counter(), time.thread_time()
    total = drops(n, rho, gamma, r, budget, counts)
    rates.append(total / (time.perf_counter() - start))
    cpu_rates.append(total / (time.thread_time() - cpu))
rates.sort(); cpu_rates.sort()
print(f"numba peer n={n} rho={rho:g} gamma={gamma:g}: {ndrops} drops x {total / ndrops:g} "
      f"impacts (p_cc {counts[1] / ndrops:.3f}, p_pcc {counts[2] / ndrops:.3f})")
print(f"impacts per second per core: median {rates[reps // 2]:.4g} "
      f"(min {rates[0]:.4g}, max {rates[-1]:.4g} over {reps} runs); "
      f"{cpu_rates[reps // 2]:.4g} per second of CPU time")
