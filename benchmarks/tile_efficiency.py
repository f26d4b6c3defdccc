#!/usr/bin/env python3
"""How many of the pairs a tile kernel tests are inside the cutoff: a numpy model of the CUDA kernel's neighbour
search (no GPU needed), for Morton- and Hilbert-ordered blocks of 32 atoms, block-pair tiles and atom-filtered
tiles.

    python3 -m benchmarks.tile_efficiency [--data-dir DIR] [--water-atoms N] [--cutoff 1.0] [--sphere-groups 2 4 8]

On the DHFR box (DIR/5dfr_solv-cube_equil.pdb), a cubic TIP3P box of about N atoms built by Modeller as
benchmarks/nonbonded_speed.py builds its water boxes (--water-atoms), or the atoms of a .gro file (--gro, e.g. a
Martini bilayer of DIR/martini), it prints, per ordering: the mean bounding-box volume of a block,
the tiles per block when a tile is a pair of blocks whose boxes come within the cutoff (the test of the kernel,
per-axis gaps at the centres' minimum image), the tiles per block when a tile is 32 atoms that can be within the
cutoff of a block's box, the same for a half list (the block itself, then atoms of later blocks only, each pair once),
and for the kernel's list: a half list of the atoms within the cutoff of at least one atom of the block (OpenMM's
filter); for each the fraction of tested pairs that are inside the cutoff.  This is the model behind the Hilbert
sort and the atom-filtered half list of platforms/cuda/src/kernels/ (sortAtoms.cu, findNeighbors.cu).
--sphere-groups G... also gives the kernel's list with a cheaper filter, the bounding spheres of G consecutive atoms
of the block instead of its single atoms (Hilbert order; G tests per candidate atom instead of 32).
--clusters IxJ... models a cluster-pair list instead (GROMACS's GPU scheme): clusters of I and of J consecutive atoms
(Hilbert order), a pair of clusters listed once when their boxes come within the list's cutoff (--cutoff plus
--skin), every listed pair of clusters computing its I x J pairs.
--partner-orders models the pair kernel's rotation over the kernel's list with the list's skin (--skin, here 0.1 nm
unless given): in a cross tile, step k pairs lane i with partner (i + k) mod 32, and a warp executes the step's pair
code only if some lane's pair is inside the cutoff.  It prints the steps executed per tile when each block's partners
are packed into tiles in slot order, at random, by their distance class (findNeighbors.cu: the squared distance to
the nearest atom of the block in 16 classes of the list's cutoff squared), and by their number of the block's atoms
inside the cutoff; then two placements within each tile of the distance-class order: partners sorted by the mean
lane of the block's atoms inside their cutoff, and each partner given, densest first, the free slot that adds the
fewest new rotation steps (greedy).  Last, for the distance-class order, a schedule with two of the block's atoms per
lane (two_atoms_per_lane_steps: each step reads and writes a partner's sums once for two pairs): its sub-steps and
steps executed per tile, and the shared-memory wavefronts per tile of both schedules (a kernel built on it was 1.8x
slower on an H100: docs/benchmarks.md, "Design decisions"); and the steps of matched steps (matched_steps: each pair
inside the cutoff given the first step free for its lane and its partner; a kernel built on it was 3% slower on an
H200 on the Martini bilayers: docs/cuda-design.md, "Tried and dropped" (g)).
--single-pairs N... models single pairs, OpenMM's scheme beside the kernel's list: a partner within the list's cutoff of
at most N of the block's atoms listed as those pairs instead of in a tile; per N it prints the cross tiles
per block, the rotation steps executed per tile (distance-class order), and the single pairs per block and the share of
them inside the cutoff (N 0: none, the list without single pairs).  A kernel built on it (N 3) gave the same bits and
was no faster on an H200 (docs/cuda-design.md, "Tried and dropped" (n)).
"""
import argparse
import os
import sys

import numpy as np


def spread_bits(v):
    v = v & 0x3FF
    v = (v | (v << 16)) & 0x030000FF
    v = (v | (v << 8)) & 0x0300F00F
    v = (v | (v << 4)) & 0x030C30C3
    return (v | (v << 2)) & 0x09249249


def morton_keys(cells):
    return spread_bits(cells[:, 0]) | (spread_bits(cells[:, 1]) << 1) | (spread_bits(cells[:, 2]) << 2)


def hilbert_keys(cells, bits=10):
    """Skilling's transpose algorithm, as hilbertKey() in the CUDA kernel."""
    axes = cells.copy()
    q = 1 << (bits - 1)
    while q > 1:
        p = q - 1
        for i in range(3):
            high = (axes[:, i] & q) != 0
            axes[high, 0] ^= p
            t = (axes[~high, 0] ^ axes[~high, i]) & p
            axes[~high, 0] ^= t
            axes[~high, i] ^= t
        q >>= 1
    axes[:, 1] ^= axes[:, 0]
    axes[:, 2] ^= axes[:, 1]
    flip = np.zeros(len(axes), dtype=np.int64)
    q = 1 << (bits - 1)
    while q > 1:
        flip[(axes[:, 2] & q) != 0] ^= q - 1
        q >>= 1
    axes ^= flip[:, None]
    return (spread_bits(axes[:, 0]) << 2) | (spread_bits(axes[:, 1]) << 1) | spread_bits(axes[:, 2])


def tile_statistics(positions, box, order, cutoff, pairs_inside):
    from scipy.spatial import cKDTree
    p = positions[order]
    tree = cKDTree(p, boxsize=box)
    n = len(p)
    blocks = (n + 31) // 32
    low = np.array([p[b * 32:(b + 1) * 32].min(0) for b in range(blocks)])
    high = np.array([p[b * 32:(b + 1) * 32].max(0) for b in range(blocks)])
    center, half = (low + high) / 2, (high - low) / 2
    delta = center[:, None, :] - center[None, :, :]
    delta -= np.round(delta / box) * box
    gap = np.maximum(0, np.abs(delta) - half[:, None, :] - half[None, :, :])
    near = (gap ** 2).sum(-1) < cutoff ** 2
    block_tiles = near.sum()
    atom_tiles = half_tiles = kernel_tiles = 0
    for b in range(blocks):
        neighbors = np.nonzero(near[b])[0]
        atoms = np.concatenate([np.arange(j * 32, min((j + 1) * 32, n)) for j in neighbors])
        d = p[atoms] - center[b]
        d -= np.round(d / box) * box
        inside = (np.maximum(0, np.abs(d) - half[b]) ** 2).sum(-1) < cutoff ** 2
        atom_tiles += int(np.ceil(inside.sum() / 32))
        # A half list: the block itself (one diagonal tile), then atoms of later blocks only.
        half_tiles += 1 + int(np.ceil((inside & (atoms // 32 > b)).sum() / 32))
        # The kernel's list: atoms of later blocks within the cutoff of at least one of the block's atoms.
        within = np.unique(np.concatenate(tree.query_ball_point(p[b * 32:(b + 1) * 32], cutoff)).astype(np.int64))
        kernel_tiles += 1 + int(np.ceil((within // 32 > b).sum() / 32))
    tested_block, tested_atom, tested_half, tested_kernel = block_tiles * 1024, atom_tiles * 1024, half_tiles * 1024, kernel_tiles * 1024
    return {"volume": float(np.prod(2 * half, axis=1).mean()), "block_tiles": block_tiles / blocks,
            "block_efficiency": 2 * pairs_inside / tested_block, "atom_tiles": atom_tiles / blocks,
            "atom_efficiency": 2 * pairs_inside / tested_atom, "half_tiles": half_tiles / blocks,
            "half_efficiency": pairs_inside / tested_half, "kernel_tiles": kernel_tiles / blocks,
            "kernel_efficiency": pairs_inside / tested_kernel}


def sphere_filtered_tiles(positions, box, order, cutoff, group):
    """Tiles per block of the half list when a later atom must be within the cutoff of a bounding sphere of `group`
    consecutive atoms of the block (boxes' and spheres' offsets at the minimum image)."""
    p = positions[order]
    n = len(p)
    blocks = (n + 31) // 32
    tiles = 0
    for b in range(blocks):
        mine = p[b * 32:(b + 1) * 32]
        center = (mine.min(0) + mine.max(0)) / 2
        half = (mine.max(0) - mine.min(0)) / 2
        d = p - center
        d -= np.round(d / box) * box
        inside = (np.maximum(0, np.abs(d) - half) ** 2).sum(-1) < cutoff ** 2
        later = np.nonzero(inside & (np.arange(n) // 32 > b))[0]
        keep = np.zeros(len(later), bool)
        for g in range(0, len(mine), group):
            sub = mine[g:g + group] - center
            c = (sub.min(0) + sub.max(0)) / 2
            radius = np.sqrt(((sub - c) ** 2).sum(1)).max()
            keep |= np.sqrt(((d[later] - c) ** 2).sum(1)) < cutoff + radius
        tiles += 1 + int(np.ceil(keep.sum() / 32))
    return tiles / blocks


def cluster_pair_statistics(positions, box, order, list_cutoff, size_i, size_j):
    """Listed cluster pairs and tested atom pairs of a half list of clusters of size_i and size_j atoms."""
    p = positions[order]
    n = len(p)

    def bounds(size):
        count = (n + size - 1) // size
        low = np.array([p[c * size:(c + 1) * size].min(0) for c in range(count)])
        high = np.array([p[c * size:(c + 1) * size].max(0) for c in range(count)])
        return (low + high) / 2, (high - low) / 2

    center_i, half_i = bounds(size_i)
    center_j, half_j = bounds(size_j)
    first_j = np.arange(len(center_j)) * size_j
    listed = 0
    for start in range(0, len(center_i), 512):
        d = center_i[start:start + 512, None, :] - center_j[None, :, :]
        d -= np.round(d / box) * box
        gap = np.maximum(0, np.abs(d) - half_i[start:start + 512, None, :] - half_j[None, :, :])
        near = (gap ** 2).sum(-1) < list_cutoff ** 2
        first_i = np.arange(start, min(start + 512, len(center_i)))[:, None] * size_i
        listed += int((near & (first_j[None, :] >= first_i)).sum())  # each pair of clusters once
    return listed, listed * size_i * size_j


def slots_in_order(inside):
    """Slots for a tile's partners as they come."""
    return np.arange(inside.shape[1])


def mean_lane_slots(inside):
    """Slots for a tile's partners (inside: [lane, partner] pairs inside the cutoff) in order of the mean lane of the
    block's atoms inside their cutoff (partners with none last)."""
    count = inside.sum(0)
    mean_lane = np.where(count > 0, (inside * np.arange(inside.shape[0])[:, None]).sum(0) / np.maximum(count, 1), 99)
    return np.argsort(np.argsort(mean_lane, kind="stable"), kind="stable")


def greedy_slots(inside):
    """Slots for a tile's partners (inside: [lane, partner] pairs inside the cutoff), densest partner first, each at the
    free slot whose pairs fall on the fewest rotation steps not yet used (step of lane i, slot s: (s - i) mod 32)."""
    free, used = np.ones(32, bool), np.zeros(32, bool)
    slots = np.empty(inside.shape[1], np.int64)
    for partner in np.argsort(-inside.sum(0), kind="stable"):
        steps = (np.arange(32)[:, None] - np.nonzero(inside[:, partner])[0][None, :]) % 32  # [slot, lane inside]
        added = np.where(free, (~used[steps]).sum(1), 33)
        slots[partner] = int(np.argmin(added))
        free[slots[partner]] = False
        used[steps[slots[partner]]] = True
    return slots


def two_atoms_per_lane_steps(inside):
    """A cross tile (inside: [i, partner] pairs inside the cutoff) in the schedule with two of the block's atoms per lane:
    lane l = 16 h + m holds atoms m and m + 16 and meets partner 16 h + (m + k) mod 16 at step k of 16, each step two
    sub-steps of 32 pairs (atom m's, then atom m + 16's) that the warp skips when no lane's pair is inside.  Returns the
    sub-steps executed and the steps in which at least one is (the steps that read and write the partners' sums)."""
    lanes = np.arange(32)
    m, h = lanes % 16, lanes // 16
    executed = partner_steps = 0
    for k in range(16):
        j = 16 * h + (m + k) % 16
        first, second = inside[m, j].any(), inside[m + 16, j].any()
        executed += int(first) + int(second)
        partner_steps += int(first or second)
    return executed, partner_steps


def matched_steps(inside):
    """A cross tile (inside: [lane, partner] pairs inside the cutoff) in matched steps (computeTiles.cuh): the rotation's
    pairs inside the cutoff taken in its order, each given the first step in which neither its lane nor its partner
    entry (lane + k, of 64) has a pair yet.  Returns the steps used, or 33 when some pair finds none of 32 free."""
    lane_used = np.zeros(32, np.int64)
    entry_used = np.zeros(64, np.int64)
    for k in range(32):
        for i in np.nonzero(inside[np.arange(32), (np.arange(32) + k) % 32])[0]:
            taken = lane_used[i] | entry_used[i + k]
            free = ~taken & 0xFFFFFFFF
            if free == 0:
                return 33
            bit = free & -free
            lane_used[i] |= bit
            entry_used[i + k] |= bit
    union = int(np.bitwise_or.reduce(lane_used))
    return union.bit_length()


def block_partners(positions, box, order, list_cutoff):
    """For each block of 32 atoms (in `order`) with partners: its atoms, its partners (the atoms of later blocks within
    list_cutoff of one of its atoms, in slot order) and their squared distances [atom of the block, partner]."""
    from scipy.spatial import cKDTree
    p = positions[order]
    tree = cKDTree(p, boxsize=box)
    for b in range((len(p) + 31) // 32):
        mine = p[b * 32:(b + 1) * 32]
        within = np.unique(np.concatenate(tree.query_ball_point(mine, list_cutoff)).astype(np.int64))
        partners = within[within // 32 > b]  # in slot order (np.unique sorts)
        if len(partners) == 0:
            continue
        d = mine[:, None, :] - p[partners][None, :, :]
        d -= np.round(d / box) * box
        yield mine, partners, (d ** 2).sum(-1)


def distance_class_order(partners, d2, list_cutoff):
    """The partners' order of findNeighbors.cu: by distance class (the squared distance to the nearest atom of the
    block in 16 classes of the list's cutoff squared), then by slot."""
    return np.lexsort((partners, np.minimum((d2.min(0) / list_cutoff ** 2 * 16).astype(int), 15)))


LANES = np.arange(32)
PARTNER_LANE = (LANES[:, None] + LANES[None, :]) % 32  # [i, k]: lane i's partner at step k


def rotation_pairs(inside):
    """A cross tile's pairs inside the cutoff (inside: [lane, partner slot]) by rotation step: [lane i, step k]."""
    return inside[LANES[:, None], PARTNER_LANE]


def rotation_steps(positions, box, order, cutoff, skin, seed=1):
    """Per partner order: rotation steps executed per cross tile of the kernel's list, and lanes busy in them; and for
    the distance-class order, the sub-steps and partner steps executed per tile by two_atoms_per_lane_steps."""
    rng = np.random.default_rng(seed)
    totals = {}
    matched = [0, 0]  # matched steps over the distance-class tiles, and tiles that need more than 32
    two_atoms = [0, 0]  # sub-steps and partner steps executed, two_atoms_per_lane_steps over the distance-class tiles
    for mine, partners, d2 in block_partners(positions, box, order, cutoff + skin):
        by_class = distance_class_order(partners, d2, cutoff + skin)
        # name: (the partners' order, packed 32 to a tile; the slots of a tile's partners)
        orders = {"slot": (np.arange(len(partners)), slots_in_order),
                  "random": (rng.permutation(len(partners)), slots_in_order),
                  "distance class": (by_class, slots_in_order),
                  "atoms inside": (np.lexsort((partners, -(d2 < cutoff ** 2).sum(0))), slots_in_order),
                  "distance class, then mean lane inside": (by_class, mean_lane_slots),
                  "distance class, then greedy slots": (by_class, greedy_slots)}
        for name, (o, place) in orders.items():
            total = totals.setdefault(name, [0, 0, 0])
            for t in range(0, len(partners), 32):
                tile = d2[:, o[t:t + 32]] < cutoff ** 2  # [lane, partner]
                inside = np.zeros((32, 32), bool)
                inside[:len(mine), place(tile)] = tile
                steps = rotation_pairs(inside)
                total[0] += int(steps.any(0).sum())
                total[1] += int(steps.sum())
                total[2] += 1
                if name == "distance class":
                    executed, partner_steps = two_atoms_per_lane_steps(inside)
                    two_atoms[0] += executed
                    two_atoms[1] += partner_steps
                    used = matched_steps(inside)
                    matched[0] += min(used, 32)
                    matched[1] += used > 32
    orders_result = {name: (executed / tiles, busy / executed, tiles) for name, (executed, busy, tiles) in totals.items()}
    tiles = totals["distance class"][2]
    return orders_result, (two_atoms[0] / tiles, two_atoms[1] / tiles, tiles), (matched[0] / tiles, matched[1] / tiles)


def single_pair_statistics(positions, box, order, cutoff, skin, limits):
    """Per limit N: cross tiles, rotation steps executed and single pairs listed (and inside the cutoff) when every
    partner within the list's cutoff (cutoff + skin) of at most N of the block's atoms is listed as single pairs."""
    totals = {limit: [0, 0, 0, 0] for limit in limits}  # tiles, steps executed, single pairs, single pairs inside
    for mine, partners, d2 in block_partners(positions, box, order, cutoff + skin):
        near_atoms = (d2 < (cutoff + skin) ** 2).sum(0)
        for limit, total in totals.items():
            single = near_atoms <= limit
            total[2] += int(near_atoms[single].sum())
            total[3] += int((d2[:, single] < cutoff ** 2).sum())
            kept = np.flatnonzero(~single)
            ordered = kept[distance_class_order(partners[kept], d2[:, kept], cutoff + skin)]
            for t in range(0, len(ordered), 32):
                inside = np.zeros((32, 32), bool)
                tile = d2[:, ordered[t:t + 32]] < cutoff ** 2
                inside[:len(mine), :tile.shape[1]] = tile
                total[0] += 1
                total[1] += int(rotation_pairs(inside).any(0).sum())
    return totals


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--cutoff", type=float, default=1.0)
    parser.add_argument("--sphere-groups", type=int, nargs="*", default=[])
    parser.add_argument("--clusters", nargs="*", default=[], help="cluster-pair lists to model, e.g. 4x8 8x8 4x4")
    parser.add_argument("--skin", type=float, default=None,
                        help="the list's buffer in nm (default 0 for --clusters, 0.1 for --partner-orders)")
    parser.add_argument("--partner-orders", action="store_true", help="steps the pair kernel's rotation executes per tile")
    parser.add_argument("--single-pairs", type=int, nargs="*", default=[],
                        help="model single pairs for partners near at most N of a block's atoms, e.g. 0 2 3 4")
    parser.add_argument("--water-atoms", type=int, default=None, help="model a cubic water box of about this many atoms")
    parser.add_argument("--gro", default=None,
                        help="model the atoms of this GROMACS .gro file (rectangular box); the model's Hilbert order "
                             "is over each edge's fractions, the kernel's own only where the edges are within 1.5x")
    args = parser.parse_args()
    import openmm.unit as unit
    from scipy.spatial import cKDTree
    if args.gro is not None:
        from openmm.app import GromacsGroFile
        gro = GromacsGroFile(args.gro)
        system_name, atom_positions, box_vectors = args.gro, gro.getPositions(), gro.getPeriodicBoxVectors()
    else:
        from benchmarks.nonbonded_speed import dhfr, water_box
        found = water_box(args.water_atoms) if args.water_atoms is not None else dhfr(args.data_dir)
        if found is None:
            sys.exit(f"{os.path.join(args.data_dir, '5dfr_solv-cube_equil.pdb')} not found (--data-dir)")
        system_name, topology, atom_positions = found
        box_vectors = topology.getPeriodicBoxVectors()
    positions = np.array(atom_positions.value_in_unit(unit.nanometer))
    box = np.array([box_vectors[i][i].value_in_unit(unit.nanometer) for i in range(3)])
    positions -= np.floor(positions / box) * box
    pairs_inside = len(cKDTree(positions, boxsize=box).query_pairs(args.cutoff))
    cells = np.clip((positions / box * 1024).astype(np.int64), 0, 1023)
    print(f"{system_name}: {len(positions)} atoms, cutoff {args.cutoff} nm, {pairs_inside} pairs inside")
    print("| order | block box volume (nm^3) | block-pair tiles per block | inside | atom tiles per block | inside "
          "| half-list tiles per block | inside | atom-filtered half list (kernel) | inside |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, keys in (("Morton", morton_keys(cells)), ("Hilbert", hilbert_keys(cells))):
        s = tile_statistics(positions, box, np.argsort(keys, kind="stable"), args.cutoff, pairs_inside)
        print(f"| {name} | {s['volume']:.3f} | {s['block_tiles']:.1f} | {s['block_efficiency']:.1%} | "
              f"{s['atom_tiles']:.1f} | {s['atom_efficiency']:.1%} | {s['half_tiles']:.1f} | {s['half_efficiency']:.1%} | "
              f"{s['kernel_tiles']:.1f} | {s['kernel_efficiency']:.1%} |")

    hilbert = np.argsort(hilbert_keys(cells), kind="stable")
    cluster_skin = args.skin if args.skin is not None else 0.0
    for shape in args.clusters:
        size_i, size_j = (int(v) for v in shape.lower().split("x"))
        listed, tested = cluster_pair_statistics(positions, box, hilbert, args.cutoff + cluster_skin, size_i, size_j)
        print(f"Hilbert, clusters {size_i}x{size_j}, list cutoff {args.cutoff + cluster_skin:g} nm: {listed} cluster pairs, "
              f"{tested} pairs tested, {pairs_inside / tested:.1%} inside")
    for group in args.sphere_groups:
        print(f"Hilbert, atom filter by bounding spheres of {group} atoms: "
              f"{sphere_filtered_tiles(positions, box, hilbert, args.cutoff, group):.2f} tiles per block")
    if args.single_pairs:
        skin = args.skin if args.skin is not None else 0.1
        blocks = (len(positions) + 31) // 32
        print(f"\nSingle pairs (Hilbert order, skin {skin:g} nm, {blocks} blocks):")
        print("| partners near at most N atoms of a block listed as pairs | cross tiles per block | steps executed per tile "
              "(of 32) | single pairs per block | inside the cutoff |")
        print("| --- | --- | --- | --- | --- |")
        totals = single_pair_statistics(positions, box, hilbert, args.cutoff, skin, sorted(args.single_pairs))
        for limit, (tiles, steps, pairs, inside) in totals.items():
            print(f"| {limit} | {tiles / blocks:.2f} | {steps / max(tiles, 1):.1f} | {pairs / blocks:.1f} | "
                  f"{inside / max(pairs, 1):.0%} |")
    if args.partner_orders:
        skin = args.skin if args.skin is not None else 0.1
        print(f"\nThe pair kernel's rotation over the kernel's list (Hilbert order, skin {skin:g} nm):")
        print("| partners packed into tiles | cross tiles | steps executed per tile (of 32) | lanes busy per executed step |")
        print("| --- | --- | --- | --- |")
        results, two, matched = rotation_steps(positions, box, hilbert, args.cutoff, skin)
        for name, (executed, busy, tiles) in results.items():
            print(f"| {name} | {tiles} | {executed:.2f} | {busy:.1f} |")
        # Shared-memory wavefronts per tile: a step reads the partners' positions (LDS.128, 4); an executed step also
        # their Lennard-Jones parameters (LDS.64, 2) and reads and writes their sums (x and y 16 bytes, z 8: 12).
        rotation = results["distance class"][0]
        print(f"\nTwo of the block's atoms per lane (distance-class order, {two[2]} cross tiles): {two[0]:.2f} of 32 sub-steps "
              f"executed per tile (the rotation: {rotation:.2f} of 32 steps), in {two[1]:.2f} of 16 steps; shared-memory "
              f"wavefronts per tile {16 * 4 + two[1] * 14:.0f} (the rotation: {32 * 4 + rotation * 14:.0f})")
        print(f"Matched steps (distance-class order): {matched[0]:.2f} steps per tile (the rotation: {rotation:.2f}), "
              f"{matched[1]:.1%} of the tiles need more than 32")


if __name__ == "__main__":
    main()
