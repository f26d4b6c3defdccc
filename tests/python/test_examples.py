"""The examples run end to end on the CPU platform, with what they write checked against independent oracles."""
import importlib.util
import os

import numpy as np
import pytest

from rdf_brute_force import assert_in_band, count_band

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def load_example(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(EXAMPLES, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_martini_bilayer_example(data_dir, tmp_path):
    folder = os.path.join(data_dir, "martini", "simple_lipid")
    if not os.path.isdir(folder):
        pytest.skip(f"{folder} is absent (pytest --data-dir)")
    example = load_example("simulate_martini_bilayer")
    # One RDF frame, at the last step: the final positions are that frame.
    results = example.main(["--data-dir", data_dir, "--system", "simple_lipid", "--steps", "10", "--interval", "10",
                            "--spacing", "0.25", "--platform", "CPU", "--output-dir", str(tmp_path)])
    for name in ("rdf_po4.csv", "rdf_po4.png", "rdf_w.csv", "rdf_w.png", "potential_xz.png",
                 "potential_profile.csv", "potential_profile.png"):
        assert os.path.getsize(tmp_path / name) > 0, name

    names = np.array([atom.name for atom in results["topology"].atoms()])
    water = np.flatnonzero(names == "W")
    table = np.loadtxt(tmp_path / "rdf_w.csv", delimiter=",", skiprows=1)
    r, g, counts = table[:, 0], table[:, 1], table[:, 3]
    assert results["water"].frames == 1
    assert_in_band(counts, count_band(results["positions"], results["box"], water, r_max=1.5, bins=150))
    assert np.all(np.isfinite(g)) and np.all(g >= 0)
    assert np.all(g[r < 0.35] == 0)  # W beads (sigma 0.47 nm) do not overlap
    assert 0.45 < r[g.argmax()] < 0.6  # Martini water's first shell

    profile = np.loadtxt(tmp_path / "potential_profile.csv", delimiter=",", skiprows=1)
    potential = results["potential"]
    # The profile is the map's x-y mean in mV, and every bead lies in one z bin of the periodic lattice.
    assert np.allclose(profile[:, 1], potential.values.mean(axis=(0, 1)) * 1e6 / 96485.33212)
    cell = potential.shape[0] * potential.spacing[0] * potential.shape[1] * potential.spacing[1] * potential.spacing[2]
    assert round(profile[:, 2].sum() * cell) == np.count_nonzero(names == "PO4") == 128
    assert round(profile[:, 3].sum() * cell) == len(water) == 768
