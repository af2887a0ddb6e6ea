"""95 % confidence intervals, without SciPy: Student's t for means, Wilson for rates.

The interval of a mean of ``n`` values is ``mean +- t(0.975, n - 1) * s / sqrt(n)`` with ``s`` the
sample standard deviation. The quantile of Student's t is found by bisection on its CDF, which is
computed from the regularized incomplete beta function (Lentz's continued fraction), so it is
exact to well below the printed precision for any number of degrees of freedom.

A rate (a clear rate, a win rate) near 0 or 1 is where the t interval fails: when every game is
won it has no spread and shrinks to a point. Rates therefore get the Wilson score interval, which
stays inside [0, 1] and keeps a sensible width at the ends.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Interval:
    """A sample mean and its confidence interval."""

    mean: float
    lo: float
    hi: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def above(self, other: Interval) -> bool:
        """True when this interval lies wholly above ``other``."""
        return self.lo > other.hi

    def as_dict(self, digits: int = 4) -> dict[str, float | int]:
        return {
            "mean": round(self.mean, digits),
            "lo": round(self.lo, digits),
            "hi": round(self.hi, digits),
            "n": self.n,
        }


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(ln_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile (0 < p < 1) of Student's t with ``df`` degrees of freedom."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError(f"t_quantile needs 0 < p < 1 and df > 0, got p={p}, df={df}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def mean_ci(values: Iterable[float], confidence: float = CONFIDENCE) -> Interval:
    """The mean of ``values`` with its t confidence interval (a single value: a zero width)."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        raise ValueError("mean_ci needs at least one value")
    mean = math.fsum(xs) / n
    if n == 1:
        return Interval(mean, mean, mean, 1)
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * math.sqrt(var / n)
    return Interval(mean, mean - half, mean + half, n)


def rate_ci(outcomes: Iterable[float], confidence: float = CONFIDENCE) -> Interval:
    """The mean of outcomes in [0, 1] (1 a success, 0 a failure, 0.5 half of each) with its
    Wilson score interval."""
    xs = [float(v) for v in outcomes]
    n = len(xs)
    if n == 0:
        raise ValueError("rate_ci needs at least one outcome")
    if any(not 0.0 <= x <= 1.0 for x in xs):
        raise ValueError("rate_ci needs outcomes between 0 and 1")
    p = math.fsum(xs) / n
    z = t_quantile(0.5 + confidence / 2.0, 1e9)  # the normal quantile, 1.96 at 95 %
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # The interval holds p; at p = 0 or 1 rounding could leave it a hair outside.
    return Interval(p, max(min(centre - half, p), 0.0), min(max(centre + half, p), 1.0), n)
