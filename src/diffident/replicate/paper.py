"""The published facts of Lee and Clifton (KDD 2012), in one place."""

from fractions import Fraction

__all__ = [
    "ADULT_N",
    "ATTRIBUTES",
    "DOMAINS",
    "ENGINE_STD_RANGE",
    "FIG3_ATTRIBUTES",
    "FIG4_SIZES",
    "FIGURE_RHO",
    "PAPER_FIG3_EPS",
    "PAPER_MEAN",
    "PAPER_MEAN_SCALE",
    "PAPER_N",
    "PAPER_STD",
    "PAPER_STD_RANGE",
    "SEC35_EPS",
    "SEC35_LIKELIHOODS",
    "SEC35_POSTERIOR",
    "SEC35_RESPONSE",
    "SEC35_WORLDS",
    "TABLE4_RHO",
    "TOY_CHECK_EPS",
    "TOY_CHECK_RISK1",
    "TOY_CHECK_SCALE",
    "TOY_CHECK_TIGHT_EPS",
    "TOY_KNOWN",
    "TOY_PAPER_MEANS",
    "TOY_PAPER_MEDIANS",
    "TOY_PAPER_RISK1",
    "TOY_PAPER_S_MEAN",
    "TOY_PAPER_S_MEDIAN",
    "TOY_RHO",
    "TOY_UNIVERSE",
]

# ---------------------------------------------------------------------------
# The Adult data (paper sec. 5, Tables 3 and 4)

#: The five numeric Adult columns of the paper, in its order.
ATTRIBUTES = ("age", "educational-num", "capital-gain", "capital-loss", "hours-per-week")
#: Table 3 domains (integers lo..hi).
DOMAINS = {"age": (17, 90), "educational-num": (1, 16), "capital-gain": (0, 99999),
           "capital-loss": (0, 4356), "hours-per-week": (1, 99)}
#: The number of Adult rows, as printed.
PAPER_N = "48842"
#: `PAPER_N` as an integer.
ADULT_N = int(PAPER_N)
#: Table 4, the columns' means and sample standard deviations.
PAPER_MEAN = {"age": "38.6436", "educational-num": "10.0781", "capital-gain": "1079.0676",
              "capital-loss": "87.5023", "hours-per-week": "40.4224"}
PAPER_STD = {"age": "13.7105", "educational-num": "2.5709", "capital-gain": "7452.019",
             "capital-loss": "403.0045", "hours-per-week": "12.3914"}
#: Table 4, scale of the mean query at rho = 0.1 and rho = 0.001.
PAPER_MEAN_SCALE = {
    0.1: {"age": "0.0007", "educational-num": "0.0006", "capital-gain": "0.2198",
          "capital-loss": "0.0144", "hours-per-week": "8.403207231434116e-4"},
    0.001: {"age": "inf", "educational-num": "inf", "capital-gain": "0.4445",
            "capital-loss": "0.0606", "hours-per-week": "inf"},
}
#: Table 4, sensitive range of the standard deviation (not reproducible: Mathematics page, section 6).
PAPER_STD_RANGE = {"age": "0.0019", "educational-num": "0.0251", "capital-gain": "26.8833",
                   "capital-loss": "0.4623", "hours-per-week": "0.0056"}
#: The exact values on the Adult data (docs/worlds.md; Mathematics page, section 6): check values.
ENGINE_STD_RANGE = {"age": "0.001969", "educational-num": "0.000328", "capital-gain": "13.4549",
                    "capital-loss": "0.4631", "hours-per-week": "0.002835"}
#: The risk bounds of Table 4.
TABLE4_RHO = (0.1, 0.001)

# ---------------------------------------------------------------------------
# Figures 2-4 (paper sec. 5)

#: Figures 2-4: rho = 0.5 / 8^k, k = 0..5.
FIGURE_RHO = tuple(0.5 / 8.0 ** k for k in range(6))
#: Figure 3, epsilon of capital-gain at FIGURE_RHO.
PAPER_FIG3_EPS = ("11.513", "8.805", "6.669", "4.582", "2.502", "0.423")
#: The columns of Figure 3.
FIG3_ATTRIBUTES = ("capital-gain", "capital-loss")
#: Figure 4, the sizes of the sampled databases.
FIG4_SIZES = (1000, 10000)

# ---------------------------------------------------------------------------
# The toy example (paper sec. 4): U = {1..10}, D' = {1, 3}

TOY_UNIVERSE = tuple(range(1, 11))
TOY_KNOWN = (1, 3)
TOY_RHO = Fraction(1, 3)
#: The paper's world means and medians of the toy example (Mathematics page, section 3).
TOY_PAPER_MEANS = ("2", "8/3", "3", "10/3", "11/3", "4", "13/3", "14/3")
TOY_PAPER_MEDIANS = ("2", "3", "3", "3", "3", "3", "3", "3")
#: The toy example's sensitive ranges of the mean and the median.
TOY_PAPER_S_MEAN = "8/3"
TOY_PAPER_S_MEDIAN = "1"
#: World 1's risk at R = 2 at the paper's scale for rho = 1/3, as printed.
TOY_PAPER_RISK1 = "0.2294"
#: Check values at rho = 1/3 (Mathematics page, sections 3-5): the paper's
#: scale of the mean, its epsilon ln(7/2), world 1's risk at R = 2 (also
#: the exact worst case) and the tight epsilon of the mean (beyond the paper).
TOY_CHECK_SCALE = "2.128628267061142"
TOY_CHECK_EPS = "1.2527629684953678"
TOY_CHECK_RISK1 = "0.22943826951692214"
TOY_CHECK_TIGHT_EPS = "2.249596594583695"

# ---------------------------------------------------------------------------
# The worked posterior example (paper sec. 3.5): worlds {1,2,3,4}, {1,2,3,5}, {1,2,3,10}

SEC35_WORLDS = ((1, 2, 3, 4), (1, 2, 3, 5), (1, 2, 3, 10))
SEC35_EPS = 2.0
SEC35_RESPONSE = 5.041
SEC35_LIKELIHOODS = ("0.0464", "0.0580", "0.1762")
SEC35_POSTERIOR = "0.6278"
