"""Bits of error and correct rounding, on hand-made cases."""

import math

import numpy as np
from mpmath.libmp import finf, fninf, from_float, from_int, from_man_exp, from_rational

from symgrad.stability.bits import FORMATS, bits_error, float_format, ordinal, round_mpf

F64, F32 = FORMATS["float64"], FORMATS["float32"]


def test_ordinal_is_adjacent_and_signed():
    xs = np.array([-np.inf, -1.0, -5e-324, -0.0, 0.0, 5e-324, 1.0, np.inf])
    o = ordinal(xs, F64)
    assert o[3] == o[4] == 0
    assert o[5] == 1 and o[2] == -1
    assert list(o) == sorted(o)
    assert ordinal(np.array([np.nextafter(1.0, 2)]), F64)[0] - o[6] == 1


def test_bits_hand_cases_float64():
    one_up = np.nextafter(1.0, 2.0)
    c = np.array([0.0, -0.0, one_up, 1.0, np.nan, np.inf, np.inf, np.nan, 5e-324, 1e-320])
    t = np.array([-0.0, 0.0, 1.0, one_up, 1.0, 1.0, np.inf, np.nan, 0.0, 1e-320])
    b = bits_error(c, t, F64)
    assert b[:4].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert b[4] == 64 and b[5] == 64  # NaN / inf where the truth is finite: full width
    assert b[6] == 0.0  # inf where the truth overflows too
    assert math.isnan(b[7])  # no truth: no measure
    assert b[8] == 1.0  # the smallest subnormal is one float from 0
    assert b[9] == 0.0


def test_bits_float32_and_opposite_signs():
    x = np.float32(1.0)
    up = np.nextafter(x, np.float32(2))
    assert bits_error(np.array([up]), np.array([x]), F32)[0] == 1.0
    assert bits_error(np.array([np.nan], np.float32), np.array([1.0], np.float32), F32)[0] == 32
    # +1 and -1 are about 2**31 float32s apart in each direction: ~31 bits
    b = bits_error(np.array([1.0], np.float32), np.array([-1.0], np.float32), F32)[0]
    assert 30.9 < b <= 32
    b64 = bits_error(np.array([1.0]), np.array([-1.0]), F64)[0]
    assert 62.9 < b64 <= 64


def test_round_mpf_ties_to_even_subnormals_and_overflow():
    # 1 + 2**-53 is a tie between 1 and 1 + 2**-52: to even, 1
    assert round_mpf(from_rational(2**53 + 1, 2**53, 200), F64) == 1.0
    assert round_mpf(from_rational(2**53 + 3, 2**53, 200), F64) == 1.0 + 2**-51
    # subnormals: half the smallest subnormal rounds to 0 (even), just above to 5e-324
    assert round_mpf(from_man_exp(1, -1075), F64) == 0.0
    assert round_mpf(from_man_exp(3, -1076), F64) == 5e-324
    assert round_mpf(from_man_exp(3, -1075), F64) == 1e-323  # 1.5 ulps: to even, 2
    assert round_mpf(from_man_exp(1, -100000), F64) == 0.0
    # overflow: the largest float, then infinity past the midpoint to 2**1024
    big = from_float(F64.max)
    assert round_mpf(big, F64) == F64.max
    assert round_mpf(from_int(2**1024), F64) == math.inf
    assert round_mpf(from_int(-(2**1024)), F64) == -math.inf
    assert round_mpf(finf, F64) == math.inf and round_mpf(fninf, F64) == -math.inf
    # float32: 1/3 as float32 (not float64 then float32: no double rounding)
    assert round_mpf(from_rational(1, 3, 300), F32) == float(np.float32(1 / 3))
    assert round_mpf(from_man_exp(1, -149), F32) == float(np.float32(1e-45))
    assert round_mpf(from_int(2**128), F32) == math.inf


def test_double_rounding_is_avoided_in_float32():
    # v = 1 + 2**-24 + 2**-60: nearest float32 is 1 + 2**-23; via float64 first
    # it would become 1 + 2**-24 (a tie) and then round to even, 1.
    v = from_rational(2**60 + 2**36 + 1, 2**60, 200)
    assert round_mpf(v, F32) == 1 + 2**-23


def test_float_format_refuses_others():
    import pytest

    with pytest.raises(ValueError, match="float32"):
        float_format("int32")
    assert float_format(np.float32) is F32
