"""Out-of-core evaluation equals the in-memory path (Mathematics page, section 8)."""

import numpy as np
import pytest

import diffident as di


def test_log_evidence_chunked_equals_in_memory(tmp_path):
    rng = np.random.default_rng(0)
    v = rng.normal(size=1_000_000) * 3
    R = np.array([0.1, -2.0, 40.0])
    for noise in ("laplace", "gaussian"):
        ref = di.log_evidence(v, response=R, scale=0.05, noise=noise)
        got = di.chunked_log_evidence(di.iter_chunks(v, chunk_size=65_537), response=R, scale=0.05, noise=noise)
        np.testing.assert_allclose(got, ref, rtol=1e-13)
    # a memory map, read slice by slice
    path = tmp_path / "worlds.f64"
    mm = np.memmap(path, dtype=np.float64, mode="w+", shape=v.shape)
    mm[:] = v
    mm.flush()
    ro = np.memmap(path, dtype=np.float64, mode="r", shape=v.shape)
    np.testing.assert_allclose(di.chunked_log_evidence(di.iter_chunks(ro, chunk_size=250_000), response=R, scale=0.05),
                               di.log_evidence(v, response=R, scale=0.05), rtol=1e-13)


def test_log_evidence_chunked_with_counts():
    rng = np.random.default_rng(1)
    v = rng.integers(0, 50, 20_000).astype(float)
    c = rng.integers(0, 4, v.size).astype(float)
    c[0] = 1
    got = di.chunked_log_evidence(di.iter_chunks(v, chunk_size=3000, counts=c), response=[3.0, 70.0], scale=0.7)
    np.testing.assert_allclose(got, di.log_evidence(v, response=[3.0, 70.0], scale=0.7, counts=c), rtol=1e-13)


def test_worst_case_chunked_equals_in_memory():
    rng = np.random.default_rng(2)
    v = np.sort(rng.normal(size=1_000_000))
    parts = [v[a:a + 100_003] for a in range(0, v.size, 100_003)]
    s = np.array([0.0, 1e-4, 0.01, 1.0, np.inf])
    np.testing.assert_array_equal(di.chunked_worst_case_risk(parts, scale=s), di.worst_case_risk(v, scale=s))
    # repeated values, some across chunk boundaries (one group, as in memory),
    # and counts: the same bits too
    w = np.sort(rng.integers(0, 300, 50_000).astype(float))
    c = rng.integers(1, 3, w.size).astype(float)
    for size in (1, 777, 50_000):
        chunks = list(di.iter_chunks(w, chunk_size=size, counts=c))
        np.testing.assert_array_equal(di.chunked_worst_case_risk(chunks, scale=[0.5, 5.0, 50.0]),
                                      di.worst_case_risk(w, scale=[0.5, 5.0, 50.0], counts=c))


def test_bad_chunks():
    with pytest.raises(ValueError, match="sorted"):
        di.chunked_worst_case_risk([np.array([1.0, 2.0]), np.array([1.5])], scale=1.0)
    with pytest.raises(ValueError, match="chunk 1"):
        di.chunked_log_evidence([np.array([1.0]), np.array([np.nan])], response=0.0, scale=1.0)
    with pytest.raises(ValueError, match="at least one"):
        di.chunked_log_evidence([], response=0.0, scale=1.0)
    with pytest.raises(ValueError, match="chunk_size"):
        list(di.iter_chunks(np.arange(3.0), chunk_size=0))


def test_posterior_of_a_given_world_out_of_core():
    rng = np.random.default_rng(5)
    v = rng.normal(size=500_000)
    c = rng.integers(1, 3, v.size).astype(float)
    R = np.array([0.2, 3.0, -50.0])
    for j in (0, 12345, 499_999):
        got = di.chunked_disclosure_risk(di.iter_chunks(v, chunk_size=60_000, counts=c), response=R, scale=0.01,
                                         world_value=v[j])
        np.testing.assert_allclose(got, di.disclosure_risk(v, response=R, scale=0.01, world=j, counts=c), rtol=1e-12,
                                   atol=1e-300)


@pytest.mark.parametrize("values, scales", [
    ([-1.5e308, 0.0, 1.5e308], [1e308, 1.0, 0.0, np.inf]),  # differences overflow
    ([0.0, 1e-310, 3e-310], [1e-310, 5e-324]),  # 1/scale overflows
    ([1.0, 1.0 + 2**-52, 1.0 + 2**-51], [1e-17, 1e-300]),
])
def test_worst_case_extremes_agree_bit_for_bit(values, scales):
    v = np.array(values)
    ref = di.worst_case_risk(v, scale=scales)
    for size in (1, 2):
        got = di.chunked_worst_case_risk(list(di.iter_chunks(v, chunk_size=size)), scale=scales)
        np.testing.assert_array_equal(got, ref)


def test_worst_case_scale_too_small_for_tiny_gaps_is_named():
    v = np.array([0.0, 1e-320, 1.0])
    for call in (lambda: di.worst_case_risk(v, scale=1e-322),
                 lambda: di.chunked_worst_case_risk([v[:2], v[2:]], scale=1e-322)):
        with pytest.raises(ValueError, match="scale"):
            call()
