#!/usr/bin/env python3
"""Regenerates the polynomial coefficients in src/cpu/dmath_impl.h (struct K<float>, K<double>).

Each fit is a weighted minimax (Remez) approximation in mpmath, of exactly the form the C++ code
evaluates, with coefficients rounded to the target precision; kind 'ds' and 'f' round one
coefficient at a time, lowest degree first, refitting the rest after each rounding. Slow (about
half an hour in all); prints each fit with its maximum weighted error after rounding.

usage: tools/gen_dmath_coeffs.py [name ...]     (names as in FITS below; default: all)
"""
import sys
import mpmath as mp

mp.mp.dps = 50


def _solve(f, w, pw, ref):
    n = len(pw)
    A = mp.matrix(n + 1, n + 1)
    rhs = mp.matrix(n + 1, 1)
    for i, x in enumerate(ref):
        for j, p in enumerate(pw):
            A[i, j] = x ** p
        A[i, n] = (-1) ** i / w(x)
        rhs[i] = f(x)
    sol = mp.lu_solve(A, rhs)
    return [sol[j] for j in range(n)], sol[n]


def _err(f, w, c, pw):
    return lambda x: w(x) * (mp.fsum(ci * x ** p for ci, p in zip(c, pw)) - f(x))


def _grid(a, b, n):  # Chebyshev-like, never exactly at a symmetric midpoint
    return [a + (b - a) * (1 - mp.cos(mp.pi * (i + mp.mpf('1e-3')) / (n - 1 + mp.mpf('1e-3')))) / 2 for i in range(n)]


def _extrema(e, a, b, npts, count):
    xs = _grid(a, b, npts)
    ys = [e(x) for x in xs]
    runs, cur = [], [0]
    for i in range(1, npts):
        if (ys[i] >= 0) == (ys[cur[-1]] >= 0):
            cur.append(i)
        else:
            runs.append(cur)
            cur = [i]
    runs.append(cur)
    pts = []
    for r in runs:
        i = max(r, key=lambda k: abs(ys[k]))
        lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, npts - 1)]
        for _ in range(40):  # golden section on |e|
            m1, m2 = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
            if abs(e(m1)) > abs(e(m2)):
                hi = m2
            else:
                lo = m1
        xm = (lo + hi) / 2
        pts.append(xm if abs(e(xm)) >= abs(ys[i]) else xs[i])
    while len(pts) > count:
        if abs(e(pts[0])) < abs(e(pts[-1])):
            pts.pop(0)
        else:
            pts.pop()
    return pts


def remez(f, w, a, b, pw, iters=30, npts=1500):
    a, b = mp.mpf(a), mp.mpf(b)
    n = len(pw)
    ref = [a + (b - a) * (1 - mp.cos(mp.pi * (i + mp.mpf('1e-3')) / (n + mp.mpf('1e-3')))) / 2 for i in range(n + 1)]
    for _ in range(iters):
        c, _E = _solve(f, w, pw, ref)
        e = _err(f, w, c, pw)
        pts = _extrema(e, a, b, npts, n + 1)
        vals = [abs(e(x)) for x in pts]
        if len(pts) == n + 1:
            ref = pts
        if max(vals) / min(vals) < 1 + mp.mpf('1e-8'):
            break
    return c


def to_float32(x):
    x = mp.mpf(x)
    if x == 0:
        return x
    q = mp.ldexp(1, int(mp.floor(mp.log(abs(x), 2))) - 23)
    return mp.nint(x / q) * q


def round_to(x, kind):
    return to_float32(x) if kind == 'f' else mp.mpf(float(x))


def fit(f, w, a, b, pw, kind):
    if kind == 'd':
        return [round_to(c, 'd') for c in remez(f, w, a, b, pw)]
    fixed = []
    for j in range(len(pw)):
        done = list(fixed)
        fj = lambda x, done=done, j=j: f(x) - mp.fsum(c * x ** p for c, p in zip(done, pw[:j]))
        fixed.append(round_to(remez(fj, w, a, b, pw[j:])[0], 'f' if kind == 'f' else 'd'))
    return fixed


def maxerr(f, w, c, pw, a, b, n=6000):
    e = _err(f, w, c, pw)
    return max(abs(e(x)) for x in _grid(mp.mpf(a), mp.mpf(b), n))


E = mp.mpf
R_LOG = lambda z: 2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) - 2
G_ERF = lambda c0: (lambda t: mp.erfc(t + c0) * mp.exp((t + c0) ** 2))
W_ERF = lambda c0: (lambda t: mp.exp(-(t + c0) ** 2))
# name: (kind, target, weight, a, b, powers)
FITS = {
    # e^r - 1 - r = r^2*exp_poly(r), relative to e^r
    'f.exp_poly': ('f', lambda r: mp.exp(r) - 1 - r, lambda r: 1 / mp.exp(r), E('-0.34658'), E('0.34658'), range(2, 7)),
    'd.exp_poly': ('d', lambda r: mp.exp(r) - 1 - r, lambda r: 1 / mp.exp(r), E('-0.34658'), E('0.34658'), range(2, 13)),
    # log(1+f) = 2s + s*z*log_poly(z), z = s^2: absolute error of R relative to 2
    'f.log_poly': ('f', R_LOG, lambda z: E(0.5), E(0), E('0.02944'), range(1, 4)),
    'd.log_poly': ('d', R_LOG, lambda z: E(0.5), E(0), E('0.02944'), range(1, 8)),
    'd.powlog_poly': ('ds', lambda z: R_LOG(z) - E(2) / 3 * z, lambda z: E(0.5), E(0), E('0.02944'), range(2, 10)),
    # e^r - 1 - r - r^2/2 = r^3*expm1_poly(r), relative to expm1(r)
    'f.expm1_poly': ('f', lambda r: mp.expm1(r) - r - r * r / 2, lambda r: 1 / abs(mp.expm1(r)), E('-0.34658'), E('0.34658'), range(3, 8)),
    'd.expm1_poly': ('d', lambda r: mp.expm1(r) - r - r * r / 2, lambda r: 1 / abs(mp.expm1(r)), E('-0.34658'), E('0.34658'), range(3, 13)),
    # sin r - r = r^3*sin_poly(r^2), cos r - 1 + r^2/2 = r^4*cos_poly(r^2), relative
    'f.sin_poly': ('f', lambda r: mp.sin(r) - r, lambda r: 1 / mp.sin(r), E(0), E('0.80'), range(3, 10, 2)),
    'd.sin_poly': ('ds', lambda r: mp.sin(r) - r, lambda r: 1 / mp.sin(r), E(0), E('0.7854'), range(3, 14, 2)),
    'f.cos_poly': ('f', lambda r: mp.cos(r) - 1 + r * r / 2, lambda r: 1 / mp.cos(r), E(0), E('0.80'), range(4, 11, 2)),
    'd.cos_poly': ('d', lambda r: mp.cos(r) - 1 + r * r / 2, lambda r: 1 / mp.cos(r), E(0), E('0.7854'), range(4, 15, 2)),
    # erf x - x = x*erf_small(x^2), relative
    'f.erf_small': ('f', lambda x: mp.erf(x) - x, lambda x: 1 / mp.erf(x), E(0), E('0.75'), range(1, 12, 2)),
    'd.erf_small': ('ds', lambda x: mp.erf(x) - x, lambda x: 1 / mp.erf(x), E(0), E('0.75'), range(1, 22, 2)),
    # erfc(x) e^(x^2) = erf_g[piece](x - mid), absolute error of erfc
    'f.erf_g0': ('f', G_ERF(E('1.375')), W_ERF(E('1.375')), E('-0.625'), E('0.625'), range(0, 9)),
    'f.erf_g1': ('f', G_ERF(E(3)), W_ERF(E(3)), E(-1), E(1), range(0, 9)),
    'd.erf_g0': ('d', G_ERF(E('1.125')), W_ERF(E('1.125')), E('-0.375'), E('0.375'), range(0, 15)),
    'd.erf_g1': ('d', G_ERF(E(2)), W_ERF(E(2)), E('-0.5'), E('0.5'), range(0, 15)),
    'd.erf_g2': ('d', G_ERF(E('4.25')), W_ERF(E('4.25')), E('-1.75'), E('1.75'), range(0, 15)),
}

def hexlit(x):  # shortest C hex literal: 0x1.8p-3, 0x1p-1
    s = float(x).hex()
    mant, exp = s.split('p')
    mant = mant.rstrip('0').rstrip('.')
    return mant + 'p' + exp


if __name__ == '__main__':
    for name in sys.argv[1:] or FITS:
        kind, f, w, a, b, pw = FITS[name]
        pw = list(pw)
        c = fit(f, w, a, b, pw, kind)
        err = maxerr(f, w, c, pw, a, b)
        suffix = 'f' if kind == 'f' else ''
        print(f'{name}: max weighted error 2^{float(mp.log(err, 2)):.2f}')
        print('  {' + ', '.join(hexlit(x) + suffix for x in c) + '}', flush=True)
