"""Bad input to the three command lines (narumi-rdf, narumi-map, narumi-hcp) and to the functions behind them is
refused with a message naming it, before any long work and before any file is written."""
import numpy as np
import pytest

from openmmnarumi import hcp
from openmmnarumi import potentialmap as pm
from openmmnarumi import rdf
from openmmnarumi.pqr import readPQR


@pytest.fixture
def not_a_pdb(tmp_path):
    path = tmp_path / "notes.pdb"
    path.write_text("these are notes,\nnot a structure\n")
    return str(path)


def never_called(*arguments, **keywords):
    raise AssertionError("the computation ran although its input was refused")


@pytest.mark.parametrize("stride", ["0", "-1", "2.5"])
def test_rdf_stride_must_be_a_positive_whole_number(tmp_path, capsys, stride):
    argv = [str(tmp_path / "traj.dcd"), "--top", str(tmp_path / "top.pdb"), "--sel1", "name O", "--stride", stride,
            "--output", str(tmp_path / "rdf.csv")]
    if stride == "2.5":  # argparse's int refuses it itself
        with pytest.raises(SystemExit):
            rdf.main(argv)
    else:
        assert rdf.main(argv) == 2
        assert f"stride = {stride} must be a whole number >= 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="stride = 0"):
        rdf.computeRDFTrajectory(str(tmp_path / "traj.dcd"), str(tmp_path / "top.pdb"), "name O", stride=0)
    assert list(tmp_path.iterdir()) == []


def test_map_stride_must_be_a_positive_whole_number(tmp_path, capsys):
    assert pm.main([str(tmp_path / "top.pdb"), "--trajectory", str(tmp_path / "traj.dcd"), "--stride", "0",
                    "--output", str(tmp_path / "map.dx")]) == 2
    assert "stride = 0 must be a whole number >= 1" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_not_a_pdb_is_named(tmp_path, capsys, not_a_pdb):
    assert rdf.main([not_a_pdb, "--top", not_a_pdb, "--sel1", "name O", "--output", str(tmp_path / "rdf.csv")]) == 2
    assert f"{not_a_pdb}: not a topology" in capsys.readouterr().err
    assert pm.main([not_a_pdb, "--output", str(tmp_path / "map.dx"), "--backend", "cpu"]) == 2
    assert f"{not_a_pdb}: not a PDB file with atoms" in capsys.readouterr().err
    assert hcp.main([not_a_pdb, "--output", str(tmp_path / "out"), "--backend", "cpu"]) == 2
    assert "not a PDB file with atoms" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.pdb"]


def test_output_into_a_missing_folder_is_refused_before_the_work(tmp_path, capsys, monkeypatch, not_a_pdb):
    missing = tmp_path / "missing"
    monkeypatch.setattr(rdf.cli, "computeRDFTrajectory", never_called)
    assert rdf.main([not_a_pdb, "--top", not_a_pdb, "--sel1", "name O", "--output", str(missing / "rdf.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    monkeypatch.setattr(pm.cli, "potentialMapFromStructure", never_called)
    assert pm.main([not_a_pdb, "--output", str(missing / "map.dx")]) == 2
    assert "does not exist" in capsys.readouterr().err
    monkeypatch.setattr(hcp.cli, "_surfacePotential", never_called)
    with pytest.raises(SystemExit):
        hcp.main([not_a_pdb, "--output", str(missing / "out")])
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("units", ["kT/e", "V"])
def test_hcp_refuses_a_negative_temperature_before_the_work(capsys, monkeypatch, not_a_pdb, units):
    monkeypatch.setattr(hcp.cli, "_surfacePotential", never_called)
    with pytest.raises(SystemExit):
        hcp.main([not_a_pdb, "--temperature", "-1", "--units", units])
    assert "--temperature -1" in capsys.readouterr().err


@pytest.mark.parametrize("cryst1", ["CRYST1    0.000    0.000    0.000   0.00   0.00   0.00 P 1           1",
                                    "CRYST1   30.000   30.000   30.000  90.00  90.00   0.00 P 1           1"])
def test_a_pqr_whose_cryst1_gives_no_box_is_named(tmp_path, capsys, cryst1):
    path = tmp_path / "box.pqr"
    path.write_text(cryst1 + "\nATOM      1  NA  NA      1       0.000   0.000   0.000  1.0000 1.8680\n"
                             "ATOM      2  CL  CL      2       5.000   0.000   0.000 -1.0000 2.2700\n")
    with pytest.raises(ValueError, match="box.pqr, line 1: CRYST1 gives no box"):
        readPQR(str(path))
    assert pm.main([str(path), "--output", str(tmp_path / "map.dx"), "--backend", "cpu"]) == 2
    assert "CRYST1 gives no box" in capsys.readouterr().err


@pytest.mark.parametrize("box", [np.full((3, 3), np.nan), np.diag([2.0, 0.0, 2.0]), np.diag([2.0, 2.0, np.inf])])
def test_compute_potential_map_names_a_bad_box(box):
    positions = np.array([[0.5, 0.5, 0.5], [0.8, 0.5, 0.5]])
    with pytest.raises(ValueError, match="boxVectors must be finite with positive widths"):
        pm.computePotentialMap(positions, [1.0, -1.0], 0.2, boxVectors=box, backend="cpu")


def test_msm_accuracy_message_states_the_range_it_enforces():
    positions = np.array([[0.5, 0.5, 0.5], [0.8, 0.5, 0.5]])
    with pytest.raises(ValueError, match="msmAccuracy must be a relative RMS error of at least .* and below 1"):
        pm.computePotentialMap(positions, [1.0, -1.0], 0.2, method="msm", msmAccuracy=1, backend="cpu")
    result = pm.computePotentialMap(positions, [1.0, -1.0], 0.2, method="msm", msmAccuracy=0.5, backend="cpu")
    assert np.all(np.isfinite(result.values))


@pytest.mark.parametrize("selection, message", [({}, "has no query key"), (None, "is None"), ([0.5], "holds 0.5"),
                                                ([], "is empty")])
def test_select_atoms_refuses_what_would_select_wrongly(selection, message):
    from conftest import water_box
    topology, _, _ = water_box(1.2)
    with pytest.raises(ValueError, match=message):
        rdf.selectAtoms(topology, selection)
    assert rdf.selectAtoms(topology, [0.0, 3]) == [0, 3]  # a whole number in a float is that index
