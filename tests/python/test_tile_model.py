"""The tile model (benchmarks/tile_efficiency.py): matched steps on tiles whose answer is known, and the single-pair
counts against pairs counted directly."""
import numpy as np
import pytest

from benchmarks.tile_efficiency import matched_steps, single_pair_statistics


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


def random_atoms(count, box, seed):
    return np.random.default_rng(seed).uniform(0.0, box, size=(count, 3))


def cross_block_pairs(positions, box, cutoff):
    """Pairs within cutoff (minimum image) whose atoms are in different blocks of 32, counted by brute force."""
    d = positions[:, None, :] - positions[None, :, :]
    d -= np.round(d / box) * box
    within = (d ** 2).sum(-1) < cutoff ** 2
    blocks = np.arange(len(positions)) // 32
    return int(np.triu(within & (blocks[:, None] != blocks[None, :]), 1).sum())


def test_without_single_pairs_none_are_listed():
    positions = random_atoms(320, 3.0, 1)
    (tiles, steps, pairs, inside), = single_pair_statistics(positions, np.full(3, 3.0), np.arange(320), 1.0, 0.1, [0]).values()
    assert pairs == 0 and inside == 0
    assert 0 < steps <= 32 * tiles


def test_with_every_partner_single_each_cross_block_pair_is_listed_once():
    # Limit 32: every partner is listed as single pairs, so no cross tile is left and the single pairs are exactly
    # the pairs of different blocks within the list's cutoff; those inside the cutoff, within the cutoff.
    box, cutoff, skin = 3.0, 1.0, 0.1
    positions = random_atoms(320, box, 2)
    (tiles, steps, pairs, inside), = single_pair_statistics(positions, np.full(3, box), np.arange(320), cutoff, skin, [32]).values()
    assert tiles == 0 and steps == 0
    assert pairs == cross_block_pairs(positions, box, cutoff + skin)
    assert inside == cross_block_pairs(positions, box, cutoff)


def test_a_higher_limit_lists_fewer_tiles_and_more_single_pairs():
    positions = random_atoms(640, 3.5, 3)
    counts = single_pair_statistics(positions, np.full(3, 3.5), np.arange(640), 1.0, 0.14, [0, 1, 3])
    tiles = [counts[limit][0] for limit in (0, 1, 3)]
    pairs = [counts[limit][2] for limit in (0, 1, 3)]
    assert tiles[0] >= tiles[1] >= tiles[2] and tiles[0] > tiles[2]
    assert pairs[0] == 0 < pairs[1] < pairs[2]
