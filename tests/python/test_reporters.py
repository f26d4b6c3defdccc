"""The reporters never lose data: real simulating subprocesses (reporter_run.py) that end without close(), are
killed (SIGKILL, SIGTERM) or fail (a reporter, the integrator), and what is on disk afterwards; append=True after a
checkpoint restart equals one uninterrupted run, and a restarted run that is refused or takes no frame changes
nothing on disk.  Plus the checks that fail at creation rather than after a run (colliding outputs included)."""
import json
import os
import signal
import subprocess
import sys

import numpy as np
import openmm
import openmm.unit as unit
import pytest

from openmmnarumi import PotentialMapReporter, RDFReporter
from openmmnarumi._reporting import UpdateSchedule, replaceAtomically

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reporter_run.py")
INTERVAL = 5


def run_script(outdir, mode, *arguments, timeout=180):
    return subprocess.run([sys.executable, SCRIPT, str(outdir), mode, *map(str, arguments)], capture_output=True,
                          text=True, timeout=timeout)


def printed_frames(stdout):
    """(step, written step) of each 'frame' line the script printed."""
    return [tuple(int(v) for v in line.split()[1:]) for line in stdout.splitlines() if line.startswith("frame ")]


def files_on_disk(outdir):
    """What a reader finds: the RDF CSV (parsed), its JSON, the state files, the map's frames from the .dx header."""
    table = np.loadtxt(outdir / "rdf.csv", delimiter=",", skiprows=1)
    metadata = json.loads((outdir / "rdf.json").read_text())
    with np.load(outdir / "rdf.csv.state.npz") as state:
        rdfState = {key: state[key] for key in state.files}
    with np.load(outdir / "map.dx.state.npz") as state:
        mapState = {key: state[key] for key in state.files}
    header = (outdir / "map.dx").read_text().splitlines()[0]
    dxFrames = int(header.split(", ")[-1].split(" frame")[0])
    return table, metadata, rdfState, mapState, dxFrames


def assert_consistent(outdir):
    """Every file holds the same frames, each frame of every report step up to lastStep (none lost, none twice)."""
    table, metadata, rdfState, mapState, dxFrames = files_on_disk(outdir)
    assert table.shape == (90, 4)
    lastStep = metadata["lastStep"]
    assert metadata["frames"] == lastStep // INTERVAL == int(rdfState["frames"]) == int(mapState["frames"]) == dxFrames
    assert np.array_equal(table[:, 3], rdfState["counts"]) and int(mapState["lastStep"]) == lastStep
    assert not [name for name in os.listdir(outdir) if name.startswith(".")], "no temporary file left behind"
    return lastStep


def test_a_script_that_never_calls_close_leaves_complete_files(tmp_path):
    result = run_script(tmp_path, "plain", 40)
    assert result.returncode == 0, result.stderr
    assert assert_consistent(tmp_path) == 40
    assert (tmp_path / "rdf.png").stat().st_size > 1000 and (tmp_path / "map.png").stat().st_size > 1000
    assert [written for _, written in printed_frames(result.stdout)] == [-1, 10, 10, 20, 20, 30, 30, 40]


def test_sigkill_leaves_every_frame_up_to_the_last_update(tmp_path):
    result = run_script(tmp_path, "self-kill", 35)
    assert result.returncode == -signal.SIGKILL
    frames = printed_frames(result.stdout)
    assert frames[-1] == (35, 30)
    assert assert_consistent(tmp_path) == 30, "the update at step 30 is on disk, step 35's frame is lost"
    assert not (tmp_path / "rdf.png").exists(), "the picture is drawn at the end only"


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_signal_from_outside_while_simulating(tmp_path, sig):
    process = subprocess.Popen([sys.executable, SCRIPT, str(tmp_path), "run-forever"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        for line in process.stdout:
            if line.startswith("frame "):
                seen.append(tuple(int(v) for v in line.split()[1:]))
                if seen[-1][1] >= 20:
                    break
        process.send_signal(sig)
        rest, errors = process.communicate(timeout=120)
    finally:
        process.kill()
    seen += printed_frames(rest)
    lastStep = assert_consistent(tmp_path)
    if sig == signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
        assert lastStep >= seen[-1][1], "at least the last update the script reported"
    else:
        assert process.returncode == 128 + signal.SIGTERM, errors
        assert lastStep >= seen[-1][0], "every frame taken before the signal"
        assert (tmp_path / "rdf.png").exists() and (tmp_path / "map.png").exists()


@pytest.mark.parametrize("mode", ["reporter-raises", "integrator-raises"])
def test_an_exception_inside_step_leaves_every_frame(tmp_path, mode):
    result = run_script(tmp_path, mode, 20)
    assert result.returncode == 1
    assert ("a reporter failed" if mode == "reporter-raises" else "NaN") in result.stderr
    assert assert_consistent(tmp_path) == 20
    assert (tmp_path / "rdf.png").exists()


def test_append_after_a_checkpoint_restart_equals_one_run(tmp_path):
    interrupted, whole = tmp_path / "interrupted", tmp_path / "whole"
    interrupted.mkdir()
    whole.mkdir()
    first = run_script(interrupted, "plain", 40, 20)  # a checkpoint at step 20, files written up to step 40
    assert first.returncode == 0, first.stderr
    assert assert_consistent(interrupted) == 40
    second = run_script(interrupted, "append", 40)    # from the checkpoint: steps 25-40 again, then 45-60
    assert second.returncode == 0, second.stderr
    assert assert_consistent(interrupted) == 60
    assert run_script(whole, "plain", 60).returncode == 0
    resumed, single = files_on_disk(interrupted), files_on_disk(whole)
    assert np.array_equal(resumed[0], single[0]), "the same counts, g(r) and n(r) as one uninterrupted run"
    np.testing.assert_allclose(resumed[3]["average"], single[3]["average"], rtol=1e-13, atol=0)


def test_restarts_that_add_no_frame_or_are_refused_change_nothing(tmp_path):
    assert run_script(tmp_path, "plain", 40, 20).returncode == 0  # a checkpoint at step 20, files up to step 40
    before = file_contents(tmp_path)
    nothing = run_script(tmp_path, "append", 0)                  # restarted, but ends before its first report
    assert nothing.returncode == 0, nothing.stderr
    assert file_contents(tmp_path) == before
    for attempt in range(2):                                     # refused, and refused again on a second try
        refused = run_script(tmp_path, "append-refused", 40)
        assert refused.returncode == 1 and "selection1 differs" in refused.stderr, refused.stderr
        assert file_contents(tmp_path) == before, f"refused run {attempt + 1} changed the earlier run's files"
    resumed = run_script(tmp_path, "append", 40)                 # steps 25-40 are on disk already: 45-60 are new
    assert resumed.returncode == 0, resumed.stderr
    assert assert_consistent(tmp_path) == 60                     # 12 frames in every file, none counted twice


def test_append_refuses_other_settings_and_missing_state(tmp_path):
    with pytest.raises(FileNotFoundError, match="rdf.csv.state.npz"):
        RDFReporter(str(tmp_path / "rdf.csv"), 5, [0, 3], append=True)
    with pytest.raises(FileNotFoundError, match="map.dx.state.npz"):
        PotentialMapReporter(str(tmp_path / "map.dx"), 5, append=True)
    assert run_script(tmp_path, "plain", 10).returncode == 0
    topology, positions, system = _water()
    simulation = _simulation(topology, positions, system)
    before = file_contents(tmp_path)
    for arguments, message in [(dict(selection1={"name": "O"}, bins=80), "bins differs"),
                               (dict(selection1={"name": "H1"}, bins=90), "selection1 differs"),
                               (dict(selection1={"name": "H1"}, bins=90), "selection1 differs")]:  # twice: still
        reporter = RDFReporter(str(tmp_path / "rdf.csv"), 5, rMax=0.9, append=True, **arguments)
        with pytest.raises(ValueError, match=message):
            reporter.report(simulation, None)
        reporter.close()
        assert file_contents(tmp_path) == before, "a refused run changed the earlier run's files"


def file_contents(folder):
    """Every file of a folder (name -> bytes), symbolic links followed."""
    return {name: (folder / name).read_bytes() for name in sorted(os.listdir(folder)) if (folder / name).is_file()}


def _water():
    from conftest import water_box
    return water_box(2.0)


def _simulation(topology, positions, system, platform="CPU"):
    import openmm.app as app
    integrator = openmm.VerletIntegrator(0.001)
    simulation = app.Simulation(topology, system, integrator, openmm.Platform.getPlatformByName(platform))
    simulation.context.setPositions(positions)
    return simulation


@pytest.mark.parametrize("arguments, message", [
    (dict(rMax=0), "rMax = 0"), (dict(bins=0), "bins = 0"), (dict(rMax=1.0, rMin=1.5), "rMax = 1"),
    (dict(reportInterval=0), "reportInterval = 0"), (dict(reportInterval=-5), "reportInterval = -5"),
    (dict(selection1=[]), "selection1 is empty"), (dict(selection2=[]), "selection2 is empty"),
    (dict(file="/no/such/directory/rdf.csv"), "does not exist"), (dict(writeInterval=0), "writeInterval = 0"),
    (dict(writeSeconds=-1), "writeSeconds = -1"), (dict(exclusion="chain"), "exclusion = 'chain'"),
    (dict(reportInterval=2.7), "reportInterval = 2.7 must be a whole number"),
    (dict(bins=2.5), "bins = 2.5 must be a whole number"), (dict(writeInterval=1.5), "writeInterval = 1.5"),
    (dict(bins=2 ** 31 - 1), "bins = 2147483647 is outside 1 to 1048576"),  # before 16 GiB of counts are allocated
    (dict(selection1=[0.5, 3]), "selection1 holds 0.5"), (dict(selection2=[1, 2.25]), "selection2 holds 2.25"),
    (dict(selection1={}), "has no query key"), (dict(selection1=None), "selection1 is None"),
    (dict(selection1={"nmae": "O"}), "unknown selection keys")])
def test_rdf_reporter_refuses_bad_input_when_created(tmp_path, arguments, message):
    values = dict(file=str(tmp_path / "rdf.csv"), reportInterval=10, selection1=[0, 3])
    values.update(arguments)
    with pytest.raises(ValueError, match=message):
        RDFReporter(**values)


def test_rdf_reporter_refuses_what_the_system_decides_at_the_first_report(tmp_path):
    topology, positions, system = _water()
    simulation = _simulation(topology, positions, system)
    for arguments, message in [(dict(selection1=[0, 10 ** 6]), "selection1\\[1\\] = 1000000 is not an atom index"),
                               (dict(selection1={"name": "X"}), "matched no atoms"),
                               (dict(selection1={"name": "O"}, rMax=1.5), "rMax")]:
        reporter = RDFReporter(str(tmp_path / "rdf.csv"), 5, **arguments)
        with pytest.raises((ValueError, openmm.OpenMMException), match=message):
            reporter.report(simulation, None)
        reporter.close()
    assert not (tmp_path / "rdf.csv").exists()


@pytest.mark.parametrize("arguments, message", [
    (dict(reportInterval=0), "reportInterval = 0"), (dict(spacing=0), "spacing = 0"),
    (dict(spacing=-0.1 * unit.nanometer), "spacing = -0.1"), (dict(cutoff=0), "cutoff = 0"),
    (dict(method="pme"), "method must be"), (dict(units="kT"), "units must be one of"),
    (dict(units="kT/e", temperature=-3), "temperature must be positive"),
    (dict(file="/no/such/directory/map.dx"), "does not exist"), (dict(sliceAxis="w"), "sliceAxis"),
    (dict(reportInterval=2.7), "reportInterval = 2.7 must be a whole number")])
def test_potential_map_reporter_refuses_bad_input_when_created(tmp_path, arguments, message):
    values = dict(file=str(tmp_path / "map.dx"), reportInterval=10)
    values.update(arguments)
    with pytest.raises(ValueError, match=message):
        PotentialMapReporter(**values)


def test_potential_map_reporter_takes_the_systems_cutoff(tmp_path):
    topology, positions, system = _water()
    for force in system.getForces():
        if isinstance(force, openmm.NonbondedForce):
            force.setCutoffDistance(0.85)
    simulation = _simulation(topology, positions, system)
    reporter = PotentialMapReporter(str(tmp_path / "map.dx"), 5, spacing=0.25, backend="cpu")
    simulation.reporters.append(reporter)
    simulation.step(5)
    assert reporter.cutoff == pytest.approx(0.85)
    explicit = PotentialMapReporter(str(tmp_path / "map2.dx"), 5, spacing=0.25, cutoff=0.7 * unit.nanometer,
                                    backend="cpu")
    simulation.reporters.append(explicit)
    simulation.step(5)
    assert explicit.cutoff == pytest.approx(0.7)


def test_files_are_replaced_atomically(tmp_path):
    path = tmp_path / "result.csv"
    path.write_text("old\n")

    def fails(temporary):
        with open(temporary, "w") as out:
            out.write("half a fi")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        replaceAtomically(str(path), fails)
    assert path.read_text() == "old\n" and os.listdir(tmp_path) == ["result.csv"]
    replaceAtomically(str(path), lambda temporary: open(temporary, "w").write("new\n"))
    assert path.read_text() == "new\n" and os.listdir(tmp_path) == ["result.csv"]
    assert (os.stat(path).st_mode & 0o777) == (0o666 & ~_umask())


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_update_schedule():
    schedule = UpdateSchedule(writeInterval=3, writeSeconds=None)
    assert [schedule.reported() for _ in range(3)] == [False, False, True]
    schedule.written(0.0)
    assert [schedule.reported() for _ in range(3)] == [False, False, True]
    schedule.written(1000.0)  # a write that took long: the next waits for 1000 s / MAXIMUM_WRITE_SHARE
    assert not any(schedule.reported() for _ in range(10))
    assert UpdateSchedule(writeInterval=None, writeSeconds=1e-9).reported()


def test_png_is_the_option_name_of_every_reporter(tmp_path):
    with pytest.warns(DeprecationWarning, match="'plot' is deprecated, use 'png'"):
        old = RDFReporter(str(tmp_path / "a.csv"), 5, [0, 3], plot=False)
    assert old._accumulation.pngPath is None
    assert RDFReporter(str(tmp_path / "b.csv"), 5, [0, 3], png=str(tmp_path / "g.png"))._accumulation.pngPath == \
        str(tmp_path / "g.png")
    assert PotentialMapReporter(str(tmp_path / "m.dx"), 5, png=False)._accumulation.pngPath is None


def _step_with_reporters(simulation, steps, *reporters):
    simulation.reporters[:] = list(reporters)
    simulation.step(steps)
    for reporter in reporters:
        reporter.close()


def test_in_process_restarts_count_every_report_step_once(tmp_path):
    """A run, a restart that takes no frame, and a restart from an older step: the map and the RDF hold one frame
    per report step (the map used to store lastStep -1 after the empty restart, then count steps 45 and 50 again)."""
    topology, positions, system = _water()
    simulation = _simulation(topology, positions, system)

    def reporters(append):
        return (RDFReporter(str(tmp_path / "rdf.csv"), 5, {"name": "O"}, rMax=0.9, bins=50, writeInterval=None,
                            append=append),
                PotentialMapReporter(str(tmp_path / "map.dx"), 5, spacing=0.4, backend="cpu", writeInterval=None,
                                     append=append))
    _step_with_reporters(simulation, 50, *reporters(False))      # steps 5..50
    before = file_contents(tmp_path)
    _step_with_reporters(simulation, 0, *reporters(True))        # no frame: nothing written
    assert file_contents(tmp_path) == before
    simulation.currentStep = 40                                  # an older checkpoint
    _step_with_reporters(simulation, 20, *reporters(True))       # 45, 50 held already; 55, 60 new
    for state in ("rdf.csv.state.npz", "map.dx.state.npz"):
        with np.load(tmp_path / state) as data:
            assert (int(data["frames"]), int(data["lastStep"])) == (12, 60), state


def test_sigterm_between_a_frame_and_its_step_waits_for_both(tmp_path):
    from openmmnarumi import _reporting
    topology, positions, system = _water()
    simulation = _simulation(topology, positions, system)
    reporter = PotentialMapReporter(str(tmp_path / "map.dx"), 5, spacing=0.4, backend="cpu", writeInterval=None)
    if signal.getsignal(signal.SIGTERM) is not _reporting._raiseSystemExit:
        pytest.skip("SIGTERM has a handler of the test runner's")
    simulation.reporters.append(reporter)
    simulation.step(10)

    class TerminatedWhileAccumulating:
        """The engine, with SIGTERM arriving right after a frame is added (before the reporter records its step)."""

        def __init__(self, engine):
            self.engine = engine

        def __getattr__(self, name):
            return getattr(self.engine, name)

        def accumulate(self, *arguments):
            self.engine.accumulate(*arguments)
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # Python runs the handler here, between two bytecodes
                pass

    engine = reporter._accumulation.engine
    reporter._accumulation.engine = TerminatedWhileAccumulating(engine)
    with pytest.raises(SystemExit) as exit:
        simulation.step(5)
    assert exit.value.code == 128 + signal.SIGTERM
    reporter._accumulation.engine = engine
    reporter.close()
    with np.load(tmp_path / "map.dx.state.npz") as data:
        assert (int(data["frames"]), int(data["lastStep"])) == (3, 15)


def test_colliding_outputs_are_refused_when_created(tmp_path):
    first = RDFReporter(str(tmp_path / "a.csv"), 5, [0, 3])
    with pytest.raises(ValueError, match="written by another open reporter"):
        RDFReporter(str(tmp_path / "a.csv"), 5, [0, 3])
    with pytest.raises(ValueError, match="png .*a.png.* written by another open reporter"):
        PotentialMapReporter(str(tmp_path / "a.dx"), 5)                       # the same stem: a.png twice
    first.close()
    RDFReporter(str(tmp_path / "a.csv"), 5, [0, 3]).close()                 # free again after close()
    with pytest.raises(ValueError, match="JSON sidecar .* same file as the file"):
        RDFReporter(str(tmp_path / "g.json"), 5, [0, 3])
    with pytest.raises(ValueError, match="png .* same file as the file"):
        RDFReporter(str(tmp_path / "r.csv"), 5, [0, 3], png=str(tmp_path / "r.csv"))
    with pytest.raises(ValueError, match="png .* same file as the file"):
        PotentialMapReporter(str(tmp_path / "m.dx"), 5, png=str(tmp_path / "m.dx"))
    os.symlink(tmp_path / "m.dx", tmp_path / "link.dx")
    held = PotentialMapReporter(str(tmp_path / "m.dx"), 5, png=False)
    with pytest.raises(ValueError, match="written by another open reporter"):
        PotentialMapReporter(str(tmp_path / "link.dx"), 5, png=False)     # one file under two names
    held.close()
    assert sorted(os.listdir(tmp_path)) == ["link.dx"], "a refused reporter wrote something"


def test_outputs_that_are_symbolic_links_are_written_through(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "rdf.csv").write_text("old\n")
    os.symlink(results / "rdf.csv", tmp_path / "rdf.csv")
    topology, positions, system = _water()
    simulation = _simulation(topology, positions, system)
    _step_with_reporters(simulation, 10, RDFReporter(str(tmp_path / "rdf.csv"), 5, {"name": "O"}, rMax=0.9,
                                                     png=False))
    assert os.path.islink(tmp_path / "rdf.csv")
    assert (results / "rdf.csv").read_text().startswith("r_nm,g,n,pair_count")


def test_a_non_periodic_rdf_needs_a_reference_volume_before_its_first_frame(tmp_path):
    import openmm.app as app
    from conftest import water_box
    topology, positions, system = water_box(2.0, nonbonded_method=app.NoCutoff)
    simulation = _simulation(topology, positions, system)
    reporter = RDFReporter(str(tmp_path / "rdf.csv"), 5, {"name": "O"}, rMax=0.9)
    simulation.reporters.append(reporter)
    with pytest.raises(ValueError, match="no periodic box.*referenceVolume"):
        simulation.step(5)
    reporter.close()
    assert os.listdir(tmp_path) == []
    _step_with_reporters(simulation, 10, RDFReporter(str(tmp_path / "rdf.csv"), 5, {"name": "O"}, rMax=0.9,
                                                     referenceVolume=8.0, png=False))
    assert json.loads((tmp_path / "rdf.json").read_text())["frames"] == 2


@pytest.mark.parametrize("volume", [-1, 0, float("nan"), float("inf"), -1 * unit.nanometer ** 3])
def test_reference_volume_must_be_positive_and_finite(tmp_path, volume):
    with pytest.raises(ValueError, match="referenceVolume = .* must be positive and finite"):
        RDFReporter(str(tmp_path / "rdf.csv"), 5, [0, 3], referenceVolume=volume)
    from openmmnarumi.rdf import RDFCounts, RDFResult
    counts = RDFCounts(counts=np.ones(4, dtype=np.uint64), frames=1, framesWithoutBox=1, pairsPerFrame=2)
    with pytest.raises(ValueError, match="referenceVolume"):
        RDFResult.fromCounts(counts, 0.0, 1.0, 2, 2, volume)
    from openmmnarumi.rdf import RDFEngine
    with pytest.raises(Exception):  # the engine's own rule, which the reporter and RDFResult follow
        RDFEngine(4, [0, 1], rMax=1.0, bins=4, backend="cpu").setReferenceVolume(volume)


@pytest.mark.parametrize("damage", [b"not a zip file", b"PK\x03\x04 truncated"], ids=["garbage", "truncated-zip"])
def test_a_damaged_state_file_is_named(tmp_path, damage):
    (tmp_path / "rdf.csv.state.npz").write_bytes(damage)
    (tmp_path / "map.dx.state.npz").write_bytes(damage)
    with pytest.raises(ValueError, match="rdf.csv.state.npz.* is damaged"):
        RDFReporter(str(tmp_path / "rdf.csv"), 5, [0, 3], append=True)
    with pytest.raises(ValueError, match="map.dx.state.npz.* is damaged"):
        PotentialMapReporter(str(tmp_path / "map.dx"), 5, append=True)


def test_a_state_file_without_its_arrays_is_named(tmp_path):
    np.savez(tmp_path / "rdf.csv.state.npz", counts=np.zeros(3))
    with pytest.raises(ValueError, match="rdf.csv.state.npz.* holds no frames"):
        RDFReporter(str(tmp_path / "rdf.csv"), 5, [0, 3], append=True)
