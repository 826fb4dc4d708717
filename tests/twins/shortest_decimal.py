"""The shortest decimal in an interval, in exact decimal arithmetic (800 digits hold any double exactly)."""
from decimal import ROUND_FLOOR, ROUND_HALF_EVEN, Decimal, localcontext


def shortest_decimal(lo: float, hi: float) -> float:
    """The number of fewest significant digits in ``(lo, hi]``: ``hi`` if it is one of them, else the one nearest
    the middle (halves to even); ``hi`` when there is none within 20 digits of the larger end."""
    with localcontext() as ctx:
        ctx.prec = 800
        a, b = Decimal(lo), Decimal(hi)
        mid = (a + b) / 2
        top = max(abs(a), abs(b))
        if top == 0:
            return hi
        e = top.adjusted() + 1
        for q in range(e, e - 20, -1):
            step = Decimal(1).scaleb(q)
            first = (a / step).to_integral_value(rounding=ROUND_FLOOR) + 1
            last = (b / step).to_integral_value(rounding=ROUND_FLOOR)
            if first <= last:
                k = last if last * step == b else min(
                    max((mid / step).to_integral_value(rounding=ROUND_HALF_EVEN), first), last)
                c = float(k * step)
                if lo < c <= hi:
                    return c
    return hi
