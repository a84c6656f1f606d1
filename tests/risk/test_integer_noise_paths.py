"""Integer noise (discrete Laplace, discrete Gaussian) in the chunked and
Dask paths: the in-memory results for the same inputs, each chunk's values
checked against the lattice as it streams, the responses once at the call.
"""

import numpy as np
import pytest

import diffident as di

DISCRETE = ["discrete_laplace", "discrete_gaussian"]
CONTINUOUS = {"discrete_laplace": "laplace", "discrete_gaussian": "gaussian"}


def _lattice_case(seed, g, m=50_000):
    rng = np.random.default_rng(seed)
    v = np.round(rng.normal(0, 40, m)) * g
    counts = rng.integers(0, 4, m).astype(float)
    counts[0] = 1.0
    R = np.array([0.0, 7.0, -31.0, 300.0]) * g
    return v, counts, R


@pytest.mark.parametrize("noise", DISCRETE)
@pytest.mark.parametrize("g", [1.0, 0.1, 3.0])
def test_in_memory_lattice_checked_in_the_kernels_pass(noise, g):
    # the values' lattice is checked by the evidence kernels as they read
    # the values (every path: one response over threaded spans, many
    # responses, the posterior rows, the sweep): the continuous formula's
    # bits where they lie on it, the first value off it named where not
    v, counts, R = _lattice_case(5, g, m=300_000)
    v[-1] = np.nextafter(3 * g, np.inf)  # (within the tolerance: on the lattice)
    for kw in (dict(), dict(counts=counts)):
        for resp in (R[1], R, np.arange(-100.0, 100.0) * g):
            args = dict(response=resp, scale=2.5 * g, **kw)
            want = di.log_evidence(v, noise=CONTINUOUS[noise], **args)
            got = di.log_evidence(v, noise=noise, granularity=g, **args)
            assert np.array_equal(got, want)
            risk = di.disclosure_risk(v, world=7, noise=noise, granularity=g, **args)
            assert np.array_equal(risk, di.disclosure_risk(v, world=7, noise=CONTINUOUS[noise], **args))
        row = di.posterior(v, response=R[2], scale=2.5 * g, noise=noise, granularity=g, **kw)
        assert np.array_equal(row, di.posterior(v, response=R[2], scale=2.5 * g, noise=CONTINUOUS[noise], **kw))
    bad = v.copy()
    bad[250_001] = 7.5 * g  # in the second worker's span
    bad[280_000] = 0.5 * g
    call = dict(scale=1.0, noise=noise, granularity=g)
    for fn in (di.log_evidence, di.disclosure_risk, di.posterior, di.log_posterior):
        for resp in ([0.0], [0.0, g, 2 * g], np.arange(5.0) * g, np.arange(100.0) * g):
            if fn in (di.posterior, di.log_posterior) and len(resp) > 5:
                continue
            with pytest.raises(ValueError, match=rf"^values must lie on the lattice of multiples of granularity "
                                                 rf"{g!r} \(integer noise\); got {7.5 * g!r}$"):
                fn(bad, response=resp, **call)
            nan = bad.copy()
            nan[290_000] = np.nan  # named as such, wherever it lies
            with pytest.raises(ValueError, match=r"^values must be finite .*got nan at index 290000$"):
                fn(nan, response=resp, **call)


@pytest.mark.parametrize("noise", DISCRETE)
@pytest.mark.parametrize("g", [1.0, 0.1, 3.0])
def test_chunked_log_evidence_equals_in_memory(noise, g):
    v, counts, R = _lattice_case(3, g)
    scale = 2.5 * g
    kw = dict(response=R, scale=scale, noise=noise, granularity=g)
    ref = di.log_evidence(v, counts=counts, **kw)
    got = di.chunked_log_evidence(di.iter_chunks(v, chunk_size=7_001, counts=counts), **kw)
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    # the continuous formula with the same energies, to the last bit
    cont = di.chunked_log_evidence(di.iter_chunks(v, chunk_size=7_001, counts=counts), response=R,
                                   scale=scale, noise=CONTINUOUS[noise])
    assert np.array_equal(got, cont)
    # scalar in, float out
    one = di.chunked_log_evidence([v[:100], v[100:]], response=float(R[1]), scale=scale, noise=noise,
                                  granularity=g)
    assert isinstance(one, float)
    assert one == pytest.approx(di.log_evidence(v, response=float(R[1]), scale=scale, noise=noise,
                                                granularity=g), rel=1e-13)


@pytest.mark.parametrize("noise", DISCRETE)
def test_chunked_disclosure_risk_equals_in_memory(noise):
    g = 0.5
    v, counts, _ = _lattice_case(5, g, m=20_000)
    for j in (0, 17, 999):
        counts[j] = 2.0  # (a world of zero count has risk 0 in memory)
        R = np.array([v[j], v[j] + g, 0.0, 300 * g])
        kw = dict(response=R, scale=4 * g, noise=noise, granularity=g)
        ref = di.disclosure_risk(v, world=j, counts=counts, **kw)
        got = di.chunked_disclosure_risk(di.iter_chunks(v, chunk_size=3_333, counts=counts), world_value=v[j],
                                         **kw)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-300)
        assert np.any(got > 1e-6)  # not only underflowed zeros


def _stream(chunks, read):
    for c in chunks:
        read.append(len(c))
        yield c


def test_chunked_lattice_errors_while_streaming():
    chunks = [np.arange(5.0) * 0.1, np.arange(5.0) * 0.1, np.array([0.2, 0.25, 0.3]), np.zeros(4)]
    read: list[int] = []
    with pytest.raises(ValueError, match=r"values \(chunk 2\) must lie on the lattice of multiples of "
                                         r"granularity 0\.1 .*got 0\.25$"):
        di.chunked_log_evidence(_stream(chunks, read), response=0.0, scale=1.0, noise="discrete_laplace",
                                granularity=0.1)
    assert read == [5, 5, 3]  # the chunk after the bad one is never read
    # responses are checked once, at the call, before any chunk is read
    read.clear()
    with pytest.raises(ValueError, match=r"response must lie on the lattice.*got 0\.5$"):
        di.chunked_log_evidence(_stream(chunks, read), response=[0.0, 0.5], scale=1.0,
                                noise="discrete_gaussian")
    assert read == []
    with pytest.raises(ValueError, match=r"world_value must lie on the lattice.*got 1\.5$"):
        di.chunked_disclosure_risk([np.arange(4.0)], response=0.0, scale=1.0, world_value=1.5,
                                   noise="discrete_laplace")
    with pytest.raises(ValueError, match="granularity applies to integer noise"):
        di.chunked_log_evidence([np.arange(4.0)], response=0.0, scale=1.0, granularity=0.5)
    with pytest.raises(ValueError, match=r"granularity must be a finite number > 0, got -1\.0"):
        di.chunked_disclosure_risk([np.arange(4.0)], response=0.0, scale=1.0, world_value=0.0,
                                   noise="discrete_laplace", granularity=-1.0)
    with pytest.raises(ValueError, match="noise must be one of"):
        di.chunked_log_evidence([np.arange(4.0)], response=0.0, scale=1.0, noise="discrete")  # type: ignore[arg-type]
    # a continuous noise takes values anywhere
    assert np.isfinite(di.chunked_log_evidence(chunks, response=0.05, scale=1.0))


def test_dask_log_evidence_integer_noise():
    da = pytest.importorskip("dask.array")
    import diffident.dask as ddask

    g = 0.25
    v, _, R = _lattice_case(7, g, m=40_000)
    x = da.from_array(v, chunks=6_000)
    for noise in DISCRETE:
        got = ddask.log_evidence(x, response=R, scale=3 * g, noise=noise, granularity=g)
        ref = di.log_evidence(v, response=R, scale=3 * g, noise=noise, granularity=g)
        np.testing.assert_allclose(got, ref, rtol=1e-12)
    bad = v.copy()
    bad[20_001] = 0.3
    lazy = ddask.log_evidence(da.from_array(bad, chunks=6_000), response=0.0, scale=1.0,
                              noise="discrete_laplace", granularity=g, compute=False)
    with pytest.raises(ValueError, match=r"values must lie on the lattice of multiples of granularity 0\.25 "
                                         r".*got 0\.3$"):
        lazy.compute()
    with pytest.raises(ValueError, match=r"response must lie on the lattice.*got 0\.1$"):
        ddask.log_evidence(x, response=0.1, scale=1.0, noise="discrete_gaussian", granularity=g, compute=False)
    with pytest.raises(ValueError, match="granularity applies to integer noise"):
        ddask.log_evidence(x, response=0.0, scale=1.0, granularity=g)
