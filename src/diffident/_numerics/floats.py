"""The float64 constants the error bounds are written in, defined once."""

import numpy as np

U = 2.0**-53  #: the unit roundoff: the relative error of one rounding to nearest
EPS = 2.0**-52  #: the spacing of the floats at 1 (NumPy's ``finfo.eps``)
TINY = float(np.finfo(np.float64).tiny)  #: the smallest normal float, 2**-1022
SUBNORMAL = float(np.nextafter(0.0, 1.0))  #: the smallest positive float, 2**-1074
