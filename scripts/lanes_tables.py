#!/usr/bin/env python3
"""lanes_tables.py: writes src/models/shared/lanes_tables.h, the tables of lanes_math.h's
logarithm and exponential, from mpmath at 200 bits (python3 scripts/lanes_tables.py >
src/models/shared/lanes_tables.h). The header is committed: the build needs no Python, and
the tables are exact constants, the same bits on every machine.

Logarithm (the design of ARM's optimized-routines pow): x = 2^k z with z in [OFF, 2 OFF),
OFF = 0x3fe6955500000000 (about 0.7083), the interval cut into N = 128 pieces by the 7
bits of z's representation after the exponent's; piece i has c near its centre, with
1/c = j/N (c < 1) or j/(2N) (c >= 1), j an integer, so that 1/c has 8 bits and z/c - 1 is
computed exactly from a split z; log c = logc + logctail, logc rounded to a multiple of
2^-43 so that k ln2_hi + logc is exact for every k a double has.

Exponential: 2^(j/N), N = 128, as a double s_j and the relative tail t_j, 2^(j/N) =
s_j (1 + t_j) to 2^-100."""
import sys
from fractions import Fraction

import mpmath

mpmath.mp.prec = 200
N = 128
OFF = 0x3FE6955500000000
LN2_HI = float.fromhex("0x1.62e42fefa3800p-1")


def bits_to_double(b):
    import struct
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def log_tables():
    rows = []
    worst_r = 0
    for i in range(N):
        a = bits_to_double(OFF + (i << 45))
        b = bits_to_double(OFF + ((i + 1) << 45))
        centre = (mpmath.mpf(a) + mpmath.mpf(b)) / 2
        if centre < 1:
            invc = Fraction(int(mpmath.nint(N / centre)), N)
        else:
            invc = Fraction(int(mpmath.nint(2 * N / centre)), 2 * N)
        # the largest |z/c - 1| over the piece (at its ends: z/c - 1 is monotone)
        for z in (a, b):
            worst_r = max(worst_r, abs(Fraction(z) * invc - 1))
        logc_exact = -mpmath.log(mpmath.mpf(invc.numerator) / invc.denominator)
        logc = float(mpmath.nint(logc_exact * 2**43) / 2**43)
        tail = float(logc_exact - mpmath.mpf(logc))
        # k ln2_hi + logc exact for every exponent k of a double (and subnormals' scaled)
        for k in (-1130, -1075, -1, 1, 1024, 1130):
            s = Fraction(k) * Fraction(LN2_HI) + Fraction(logc)
            assert Fraction(float(s)) == s, (i, k)
        assert float(invc) == invc
        rows.append((float(invc), logc, tail))
    assert worst_r <= Fraction(1, N), float(worst_r)
    return rows, float(worst_r)


def exp_tables():
    rows = []
    for j in range(N):
        exact = mpmath.power(2, mpmath.mpf(j) / N)
        s = float(exact)
        t = float(exact / s - 1)
        rows.append((s, t))
    return rows


def emit(name, values, out):
    out.write("static const double %s[%d] = {\n" % (name, len(values)))
    for k in range(0, len(values), 3):
        out.write("    " + " ".join("%s," % v.hex() for v in values[k:k + 3]) + "\n")
    out.write("};\n")


def main():
    logs, worst_r = log_tables()
    exps = exp_tables()
    out = sys.stdout
    out.write("/* lanes_tables.h: the tables of lanes_math.h's logarithm and exponential, written by\n"
              " * scripts/lanes_tables.py from mpmath (do not edit: run the script). N = %d pieces;\n"
              " * log: 1/c_i, log c_i = logc_i + logctail_i (|z/c_i - 1| <= %.6g over piece i);\n"
              " * exp: 2^(j/N) = s_j (1 + t_j). Included by lanes_math.h only. */\n" % (N, worst_r))
    out.write("#ifndef IMPACTSWEEP_LANES_TABLES_H\n#define IMPACTSWEEP_LANES_TABLES_H\n\n")
    out.write("#define LV_TABLE_BITS 7\n\n")
    emit("lv_log_invc", [r[0] for r in logs], out)
    emit("lv_log_logc", [r[1] for r in logs], out)
    emit("lv_log_logctail", [r[2] for r in logs], out)
    emit("lv_exp_scale", [r[0] for r in exps], out)
    emit("lv_exp_tail", [r[1] for r in exps], out)
    out.write("\n#endif\n")


if __name__ == "__main__":
    main()
