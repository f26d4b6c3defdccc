"""Independent oracle for the RDF tests: double-precision NumPy distances with an exhaustive minimum-image search.

The engine bins single-precision distances, so a pair within float rounding of a bin edge may land on either side.
count_band returns, per bin, the ordered pairs certainly in it (low) and those that may be (high); a correct
histogram lies between them, and equals low wherever no pair is ambiguous.
"""
import itertools

import numpy as np


def minimum_image_distances(a, b, box):
    """Distances (n_a, n_b) between rows of a and b (nm); box: 3x3 vectors (rows) or None."""
    d = a[:, None, :] - b[None, :, :]
    if box is None:
        return np.sqrt(np.sum(d * d, axis=-1))
    box = np.asarray(box, dtype=np.float64)
    fractional = d @ np.linalg.inv(box)
    fractional -= np.round(fractional)
    d = fractional @ box
    best = np.full(d.shape[:2], np.inf)
    for shift in itertools.product((-1, 0, 1), repeat=3):
        image = d + np.asarray(shift, dtype=np.float64) @ box
        best = np.minimum(best, np.sum(image * image, axis=-1))
    return np.sqrt(best)


def count_band(positions, box, selection1, selection2=None, r_min=0.0, r_max=1.0, bins=100, groups=None,
               tolerance=4e-6):
    """(low, high, ambiguous) ordered-pair counts per bin for one frame; selection2 None means selection1."""
    positions = np.asarray(positions, dtype=np.float64)
    s1 = np.asarray(selection1, dtype=np.int64)
    s2 = s1 if selection2 is None else np.asarray(selection2, dtype=np.int64)
    r = minimum_image_distances(positions[s1], positions[s2], box)
    valid = s1[:, None] != s2[None, :]
    if groups is not None:
        groups = np.asarray(groups)
        valid &= groups[s1][:, None] != groups[s2][None, :]
    width = (r_max - r_min) / bins
    x = (r[valid] - r_min) / width
    low_bin = np.floor(x - tolerance / width).astype(np.int64)
    high_bin = np.floor(x + tolerance / width).astype(np.int64)
    certain = low_bin == high_bin
    inside = certain & (low_bin >= 0) & (low_bin < bins)
    low = np.bincount(low_bin[inside], minlength=bins)
    high = low.copy()
    for lo, hi in zip(low_bin[~certain], high_bin[~certain]):
        for k in range(max(lo, 0), min(hi, bins - 1) + 1):
            high[k] += 1
    return low, high, int(np.count_nonzero(~certain))


def assert_in_band(counts, band):
    low, high, _ = band
    counts = np.asarray(counts, dtype=np.int64)
    outside = np.flatnonzero((counts < low) | (counts > high))
    assert outside.size == 0, f"bins {outside[:10]} outside the oracle's band: {counts[outside[:10]]} vs " \
                              f"[{low[outside[:10]]}, {high[outside[:10]]}]"
