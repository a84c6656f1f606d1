#!/usr/bin/env python
"""Draw the figure of the Concepts page: the paper's toy example.

Usage (from the repository root)::

    python docs/scripts/concepts_figure.py [--out docs/img/concepts-toy.png]

Left: the adversary's posterior of each of the eight possible worlds of the
toy example (U = {1..10}, D' = {1, 3}, f = mean) as a function of the noisy
response R, at the paper's scale for rho = 1/3. Every curve stays below the
exact worst case 0.2294 (world 1 at R = 2), well under the bound 1/3.
Right: risk against epsilon for the mean and the median: the paper's bound,
which the median attains and the mean does not, against the exact worst case.
"""
import argparse
from pathlib import Path

import numpy as np

import diffident as di

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "docs" / "img" / "concepts-toy.png"

KNOWN = np.array([1.0, 3.0])
CANDIDATES = np.setdiff1d(np.arange(1.0, 11.0), KNOWN)   # U \ D' = {2, 4, 5, ..., 10}
RHO = 1 / 3


def toy_worlds():
    """The toy example's world values (one world per missing value)."""
    means, _ = di.world_values("mean", known=KNOWN, candidates=CANDIDATES)
    medians, counts = di.world_values("median", known=KNOWN, candidates=CANDIDATES)
    return means, np.repeat(medians, counts.astype(int))


def draw(out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    means, medians = toy_worlds()
    m = means.size
    S = np.ptp(means)
    lam = di.scale_for_rho(RHO, m=m, sensitive_range=S)
    R = np.linspace(-2.0, 9.0, 1101)
    post = di.posterior(means, response=R, scale=lam)            # shape (responses, worlds)
    worst, world = di.worst_case_risk(means, scale=lam, return_world=True)

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    colors = plt.cm.viridis(np.linspace(0, 0.9, m))
    for j in range(m):
        ax1.plot(R, post[:, j], color=colors[j], lw=1.4, label=f"world {j + 1}: mean {means[j]:.3g}")
    ax1.axhline(RHO, color="crimson", ls="--", lw=1.2, label="rho = 1/3 (the paper's bound)")
    ax1.axhline(worst, color="black", ls=":", lw=1.2, label=f"exact worst case {worst:.4f}")
    ax1.plot([means[world]], [worst], "o", color="black")
    ax1.set(xlabel="noisy response R", ylabel="posterior P(world | R)",
            title=f"Toy example, mean, Laplace scale {lam:.4f}", ylim=(0, 0.46))
    ax1.legend(fontsize=7, loc="upper center", ncol=2, framealpha=0.9)
    ax1.grid(alpha=0.3)

    eps = np.linspace(0.01, 4.0, 400)
    ax2.plot(eps, di.rho_for_epsilon(eps, m=m), color="crimson", lw=2, label="paper's bound (Theorem 1)")
    ax2.plot(eps, di.worst_case_risk(medians, scale=np.ptp(medians) / eps), color="tab:orange", ls="--", lw=1.5,
             label="exact worst case, median")
    ax2.plot(eps, di.worst_case_risk(means, scale=S / eps), color="tab:blue", lw=1.5, label="exact worst case, mean")
    ax2.axhline(RHO, color="gray", lw=0.8)
    e_paper = di.epsilon_for_rho(RHO, m=m)
    e_tight = di.tight_epsilon(means, rho=RHO)
    ax2.plot([e_paper, e_tight], [RHO, RHO], "o", color="black")
    ax2.annotate(f"paper: eps = {e_paper:.3f}", (e_paper, RHO), (0.1, 0.45), fontsize=8,
                 arrowprops=dict(arrowstyle="->", lw=0.8))
    ax2.annotate(f"exact, mean: eps = {e_tight:.3f}", (e_tight, RHO), (2.4, 0.2), fontsize=8,
                 arrowprops=dict(arrowstyle="->", lw=0.8))
    ax2.set(xlabel="epsilon = S / scale", ylabel="worst-case identification risk",
            title="Risk against epsilon, m = 8 worlds", ylim=(0, 0.62))
    ax2.legend(fontsize=8, loc="upper left")
    ax2.grid(alpha=0.3)

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="PNG to write (default: %(default)s)")
    args = parser.parse_args(argv)
    print(draw(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
