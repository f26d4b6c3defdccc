"""The tile model's count of matched steps (benchmarks/tile_efficiency.py) on tiles whose answer is known."""
import numpy as np
import pytest

from benchmarks.tile_efficiency import matched_steps


def rotation_tile(steps):
    """A tile whose pairs inside the cutoff are every lane's pair at each of the given rotation steps."""
    inside = np.zeros((32, 32), bool)
    lanes = np.arange(32)
    for k in steps:
        inside[lanes, (lanes + k) % 32] = True
    return inside


def test_an_empty_tile_takes_no_step():
    assert matched_steps(np.zeros((32, 32), bool)) == 0


def test_one_pair_takes_one_step():
    inside = np.zeros((32, 32), bool)
    inside[5, 17] = True
    assert matched_steps(inside) == 1


@pytest.mark.parametrize("steps", [[0], [3, 9], list(range(32))])
def test_whole_rotation_steps_keep_one_step_each(steps):
    # Each rotation step is a matching already: its pairs meet no used lane or entry, step after step.
    assert matched_steps(rotation_tile(steps)) == len(steps)


def test_a_lane_with_several_pairs_takes_one_step_per_pair():
    inside = np.zeros((32, 32), bool)
    inside[0, [1, 7, 20]] = True
    assert matched_steps(inside) == 3


def test_pairs_of_different_lanes_and_partners_share_a_step():
    inside = np.zeros((32, 32), bool)
    inside[0, 3] = inside[1, 9] = inside[2, 30] = True  # rotation steps 3, 8 and 28: three lanes, three entries
    assert matched_steps(inside) == 1


def test_two_pairs_on_one_entry_take_two_steps():
    # Lane 0 at step 2 and lane 1 at step 1 both reach entry 2 (partner 2).
    inside = np.zeros((32, 32), bool)
    inside[0, 2] = inside[1, 2] = True
    assert matched_steps(inside) == 2
