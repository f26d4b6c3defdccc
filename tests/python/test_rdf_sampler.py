"""openmmnarumi.RDFSampler, the in-context RDF sampler: its counts and g(r) against RDFEngine on the same frames
(CPU, and CUDA where present), topology selections and exclusions, errors naming the bad value, XML round trip."""
import json

import openmm
import openmm.app as app
import openmm.unit as unit
import numpy as np
import pytest

import openmmnarumi
from conftest import PositionRecorder, water_box
from openmmnarumi import RDFEngine, RDFSampler
from openmmnarumi.rdf import RDFResult, createSampler, cudaAvailable, exclusionGroups, samplerResult, selectAtoms

OXYGENS = {"resname": "HOH", "name": "O"}


def platform_or_skip(name):
    names = [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]
    if name not in names or (name == "CUDA" and not cudaAvailable()):
        pytest.skip(f"no {name} platform or device here")
    return openmm.Platform.getPlatformByName(name)


def water_simulation(platform, samplers, edge=2.0, properties=None):
    topology, positions, system = water_box(edge)
    for make in samplers:
        system.addForce(make(topology))
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 0.001 * unit.picoseconds)
    integrator.setRandomNumberSeed(7)
    simulation = app.Simulation(topology, system, integrator, platform, properties or {})
    simulation.context.setPositions(positions)
    simulation.context.setVelocitiesToTemperature(300 * unit.kelvin, 7)
    return simulation


@pytest.mark.parametrize("platform_name,precision", [("CPU", None), ("CUDA", "single"), ("CUDA", "mixed"),
                                                     ("CUDA", "double")])
@pytest.mark.parametrize("exclusion", [None, "residue"])
def test_result_equals_rdfengine_on_the_same_frames(platform_name, precision, exclusion):
    platform = platform_or_skip(platform_name)
    samplers = []
    simulation = water_simulation(platform, [lambda top: samplers.append(createSampler(
        top, OXYGENS, None if exclusion is None else {"resname": "HOH"}, rMax=0.9 * unit.nanometer, bins=90,
        samplingInterval=5, exclusion=exclusion)) or samplers[-1]],
        properties={"Precision": precision} if precision else None)
    sampler = samplers[0]
    recorder = PositionRecorder(5)
    state = simulation.context.getState(getPositions=True)
    recorder.frames.append((state.getPositions(asNumpy=True).value_in_unit(unit.nanometer),
                            state.getPeriodicBoxVectors(asNumpy=True).value_in_unit(unit.nanometer)))
    simulation.reporters.append(recorder)
    simulation.step(20)            # the sampler takes steps 0, 5, 10, 15 at the start of the next step ...
    sampler.sample(simulation.context)   # ... and step 20 now
    topology = simulation.topology
    sel1 = selectAtoms(topology, OXYGENS)
    sel2 = None if exclusion is None else selectAtoms(topology, {"resname": "HOH"})
    engine = RDFEngine(topology.getNumAtoms(), sel1, sel2, rMax=0.9, bins=90, backend="cpu",
                       exclusionGroups=exclusionGroups(topology, exclusion))
    for positions, box in recorder.frames:
        engine.addFrame(positions, box)
    result = samplerResult(sampler, simulation.context)
    expected = RDFResult.fromEngine(engine)
    assert isinstance(result, RDFResult)
    assert result.frames == expected.frames == 5
    assert result.metadata["lastStep"] == 20
    assert result.metadata["pairsPerFrame"] == expected.metadata["pairsPerFrame"]
    np.testing.assert_array_equal(result.counts, expected.counts)
    assert result.counts.sum() > 10000
    np.testing.assert_array_equal(result.edges, engine.binEdges())
    np.testing.assert_array_equal(result.r, expected.r)
    np.testing.assert_allclose(result.g, expected.g, rtol=1e-14, atol=0)
    np.testing.assert_allclose(result.n, expected.n, rtol=1e-14, atol=0)
    if exclusion is None:
        assert 0.26 < result.r[int(np.argmax(result.g))] < 0.30, "the first O-O peak of water"


def test_sampling_interval_and_files(tmp_path):
    platform = platform_or_skip("CPU")
    samplers = []
    simulation = water_simulation(platform, [lambda top: samplers.append(createSampler(
        top, OXYGENS, rMax=0.8, bins=40, samplingInterval=4)) or samplers[-1]])
    sampler = samplers[0]
    assert sampler.getForceGroup() == 31
    simulation.context.getState(getEnergy=True, getForces=True)
    assert sampler.getResult(simulation.context).numFrames == 0
    simulation.step(9)    # steps 0, 4, 8
    raw = sampler.getResult(simulation.context)
    assert (raw.numFrames, raw.lastSampledStep, raw.framesWithoutBox) == (3, 8, 0)
    assert len(raw.pairCounts) == 40
    result = samplerResult(sampler, simulation.context, run="test")
    result.writeCSV(tmp_path / "rdf.csv")
    result.writeMetadata(tmp_path / "rdf.json")
    result.plot(tmp_path / "rdf.png")
    table = np.loadtxt(tmp_path / "rdf.csv", delimiter=",", skiprows=1)
    assert table.shape == (40, 4) and np.array_equal(table[:, 3], result.counts)
    metadata = json.loads((tmp_path / "rdf.json").read_text())
    assert metadata["backend"] == "in-context RDFSampler (CPU)" and metadata["run"] == "test"
    assert metadata["frames"] == 3 and metadata["lastStep"] == 8
    assert (tmp_path / "rdf.png").stat().st_size > 1000
    sampler.reset(simulation.context)
    assert sampler.getResult(simulation.context).numFrames == 0
    with pytest.raises(RuntimeError, match="no frame"):
        samplerResult(sampler, simulation.context)


def test_molecule_exclusion_from_topology_bonds():
    topology, _, _ = water_box(2.1)
    by_residue = createSampler(topology, {"resname": "HOH"}, exclusion="residue")
    by_molecule = createSampler(topology, {"resname": "HOH"}, exclusion="molecule")
    residues = np.array(by_residue.getExclusionGroups())
    molecules = np.array(by_molecule.getExclusionGroups())
    # Each water is one residue and one molecule: the same partition, whatever the numbering.
    assert len(set(zip(residues, molecules))) == len(set(residues)) == len(set(molecules)) == topology.getNumResidues()


def test_bad_input_names_the_value():
    with pytest.raises(openmm.OpenMMException, match="bins = 0"):
        RDFSampler([0, 1], bins=0)
    with pytest.raises(openmm.OpenMMException, match="samplingInterval = -3"):
        RDFSampler([0, 1], samplingInterval=-3)
    with pytest.raises(openmm.OpenMMException, match="rMax = 0.25 must be finite and larger than rMin = 0.5"):
        RDFSampler([0, 1], rMax=0.25, rMin=0.5)
    topology, positions, system = water_box(2.1)
    system.addForce(RDFSampler([0, 3, 10 ** 6]))
    with pytest.raises(openmm.OpenMMException, match=r"selection1\[2\] = 1000000 is not an atom index"):
        openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    with pytest.raises(ValueError, match="matched no atoms"):
        createSampler(topology, {"resname": "NA"})


def test_serialization_round_trip():
    topology, positions, system = water_box(2.1)
    sampler = createSampler(topology, OXYGENS, {"element": "H"}, rMax=0.7, bins=70, samplingInterval=25, rMin=0.1,
                            exclusion="residue")
    sampler.setName("O-H")
    system.addForce(sampler)
    copy = openmm.XmlSerializer.deserialize(openmm.XmlSerializer.serialize(system))
    restored = [f for f in copy.getForces() if RDFSampler.isinstance(f)]
    assert len(restored) == 1
    restored = RDFSampler.cast(restored[0])
    assert restored.getSelection1() == sampler.getSelection1()
    assert restored.getSelection2() == sampler.getSelection2()
    assert restored.getExclusionGroups() == sampler.getExclusionGroups()
    assert (restored.getRMin(), restored.getRMax(), restored.getNumBins(), restored.getSamplingInterval()) == \
        (0.1, 0.7, 70, 25)
    assert (restored.getName(), restored.getForceGroup()) == ("O-H", 31)
    # The restored System runs and samples.
    context = openmm.Context(copy, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(positions)
    restored.sample(context)
    assert restored.getResult(context).numFrames == 1
