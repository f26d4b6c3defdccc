"""Speed of the RDF engine: atom pairs per second on water boxes from 10k to 4.7M atoms (all-pairs and cell-list
paths), the CPU backend, mdtraj.compute_rdf and MDAnalysis' InterRDF on the same 100k-atom frame, and the overhead
of sampling g(r) every 100 steps in a ~100k-atom OpenMM simulation on the CUDA platform, side by side in one run:
RDFReporter (OpenMM's reporter protocol: getState(positions), then the engine) and the in-context RDFSampler force
(OpenMM's own position buffer, on its stream, no download).

    python3 -m benchmarks.rdf_speed [--sizes 10000,100000,1000000,4741632] [--markdown FILE] [--json FILE]
                                    [--skip-mdtraj] [--skip-mdanalysis] [--skip-overhead] [--skip-gpu-table]
                                    [--overhead-only] [--cpu-only] [--mdanalysis-runs 3]

--cpu-only runs only the comparison's CPU rows (this project's CPU backend, mdtraj, MDAnalysis), on a machine with
or without a GPU; without a CUDA device the GPU parts are skipped anyway.  mdtraj and MDAnalysis are optional
imports: a missing one only drops its row.

Water boxes: a TIP3P box from OpenMM's Modeller, replicated and cut to a cube of the requested size (whole
molecules whose oxygen lies inside); the seams are not equilibrated, which does not change the work.  Rates count
the distances the engine evaluates: N(N-1)/2 for identical selections (each unordered pair once; the paper's
N1*N2 metric counts them twice), N1*N2 for disjoint ones.  Times are end to end per frame (upload, wrap, sort,
histogram, synchronize), medians of repeated frames after a warm-up frame.
"""
import argparse
import math
import os
import platform
import statistics
import sys
import time

import numpy as np

from openmmnarumi.rdf import RDFEngine, RDFReporter, createSampler, cudaAvailable, samplerResult
from benchmarks.reporting import gpu_names, write_report

PAPER_RATE = 38.47e9  # pairs/s, Levine et al. 2011, four GTX 480 (N1*N2 counting)
R_MAX = 1.2


def water_template(edge_nm=3.1):
    """Positions (nm) and elements of a TIP3P box from Modeller: the unit that is replicated."""
    import openmm
    import openmm.app as app
    import openmm.unit as unit
    forcefield = app.ForceField("amber14/tip3p.xml")
    modeller = app.Modeller(app.Topology(), [])
    modeller.addSolvent(forcefield, boxSize=openmm.Vec3(edge_nm, edge_nm, edge_nm) * unit.nanometer)
    positions = np.array(modeller.positions.value_in_unit(unit.nanometer))
    elements = np.array([atom.element.symbol for atom in modeller.topology.atoms()])
    return positions, elements, edge_nm


def water_box(num_atoms, template):
    """About num_atoms atoms of water in a cube at the template's density: (positions float64, elements, edge)."""
    positions, elements, edge0 = template
    density = len(positions) / edge0 ** 3
    edge = (num_atoms / density) ** (1.0 / 3.0)
    copies = int(math.ceil(edge / edge0))
    shifts = np.array([(i, j, k) for i in range(copies) for j in range(copies) for k in range(copies)]) * edge0
    molecules = positions.reshape(-1, 3, 3)  # O, H, H per water
    oxygens = molecules[:, 0, :]
    all_molecules = (molecules[None, :, :, :] + shifts[:, None, None, :]).reshape(-1, 3, 3)
    all_oxygens = (oxygens[None, :, :] + shifts[:, None, :]).reshape(-1, 3)
    inside = np.all((all_oxygens >= 0) & (all_oxygens < edge), axis=1)
    kept = all_molecules[inside].reshape(-1, 3)
    kept_elements = np.tile(elements.reshape(-1, 3), (len(shifts), 1))[inside].reshape(-1)
    return np.ascontiguousarray(kept), kept_elements, edge


def time_frames(engine, positions, box, min_seconds=1.0, max_frames=20, warmup=True):
    """Seconds per frame of a run of addFrame calls, from the first call to the counts read after the last: the
    engine pipelines frames (the host gathers and uploads one while the GPU counts the one before), so this is the
    rate at which a trajectory goes through it, upload, wrap, sort, histogram and final synchronization included."""
    if warmup:
        engine.addFrame(positions, box)
        engine.pairCounts()
    frames = 0
    start = time.perf_counter()
    while frames < max_frames and (frames < 3 or time.perf_counter() - start < min_seconds):
        engine.addFrame(positions, box)
        frames += 1
    engine.pairCounts()
    return (time.perf_counter() - start) / frames, frames


def gpu_rows(sizes, template, rows):
    for requested in sizes:
        positions, elements, edge = water_box(requested, template)
        n = len(positions)
        box = np.diag([edge] * 3)
        everything = np.arange(n)
        pairs = n * (n - 1) // 2
        cases = [("all-pairs", R_MAX, 240), ("cell-list", R_MAX, 240)]
        if n <= 1_100_000:
            cases.append(("all-pairs", 0.5 * edge, 2000))
        for algorithm, r_max, bins in cases:
            engine = RDFEngine(n, everything, rMax=r_max, bins=bins, backend="cuda", algorithm=algorithm)
            big = algorithm == "all-pairs" and pairs > 2e11
            seconds, frames = time_frames(engine, positions, box, warmup=not big, max_frames=1 if big else 20)
            rows.append(dict(part="gpu", atoms=n, edge_nm=round(edge, 3), selection="all atoms (identical)",
                             algorithm=algorithm, r_max_nm=round(r_max, 3), bins=bins, frames=frames,
                             seconds_per_frame=seconds, pairs=pairs, pairs_per_second=pairs / seconds,
                             paper_metric_per_second=2 * pairs / seconds))
            print(f"  {n:>9} atoms {algorithm:9} rMax {r_max:6.2f} nm: {seconds * 1e3:10.3f} ms/frame, "
                  f"{pairs / seconds / 1e9:9.1f} G distinct pairs/s ({frames} frames)", flush=True)
        if n <= 1_100_000:
            # Disjoint selections, as in the paper's N1 x N2 setting: oxygens against hydrogens.
            oxygens, hydrogens = np.flatnonzero(elements == "O"), np.flatnonzero(elements == "H")
            engine = RDFEngine(n, oxygens, hydrogens, rMax=R_MAX, bins=240, backend="cuda", algorithm="all-pairs")
            seconds, frames = time_frames(engine, positions, box, max_frames=3 if n > 500_000 else 20)
            cross = len(oxygens) * len(hydrogens)
            rows.append(dict(part="gpu", atoms=n, edge_nm=round(edge, 3), selection="O x H (disjoint)",
                             algorithm="all-pairs", r_max_nm=R_MAX, bins=240, frames=frames,
                             seconds_per_frame=seconds, pairs=cross, pairs_per_second=cross / seconds,
                             paper_metric_per_second=cross / seconds))
            print(f"  {n:>9} atoms O x H all-pairs: {cross / seconds / 1e9:9.1f} G pairs/s", flush=True)


def comparison_rows(template, rows, skip_mdtraj, skip_mdanalysis=False, use_cuda=True, mdanalysis_runs=3):
    """100k-atom water, O-O to 1.2 nm: GPU (auto and all-pairs), the CPU backend, mdtraj.compute_rdf and
    MDAnalysis' InterRDF on the same frame."""
    positions, elements, edge = water_box(100_000, template)
    n = len(positions)
    box = np.diag([edge] * 3)
    oxygens = np.flatnonzero(elements == "O")
    bins = 240
    base = dict(part="compare", atoms=n, selection=f"O-O ({len(oxygens)} oxygens)", r_max_nm=R_MAX, bins=bins,
                cpu_cores=os.cpu_count())
    results = {}
    for label, backend, algorithm in [("openmm-narumi CUDA (auto)", "cuda", "auto"),
                                      ("openmm-narumi CUDA all-pairs", "cuda", "all-pairs"),
                                      ("openmm-narumi CPU (all cores)", "cpu", "auto")]:
        if backend == "cuda" and not use_cuda:
            continue
        engine = RDFEngine(n, oxygens, rMax=R_MAX, bins=bins, backend=backend, algorithm=algorithm)
        seconds, frames = time_frames(engine, positions, box, max_frames=10)
        engine.reset()
        engine.addFrame(positions, box)
        results[label] = (engine.rdf(), np.asarray(engine.pairCounts()), np.asarray(engine.binCenters()))
        rows.append(dict(base, tool=label, algorithm=engine.lastAlgorithm, seconds_per_frame=seconds, frames=frames))
        print(f"  {label:32} {seconds * 1e3:10.3f} ms/frame ({engine.lastAlgorithm})", flush=True)
    reference = results.get("openmm-narumi CUDA (auto)", results.get("openmm-narumi CPU (all cores)"))
    if not skip_mdtraj:
        mdtraj_row(positions, edge, oxygens, bins, base, reference, rows)
    if not skip_mdanalysis:
        mdanalysis_row(positions, elements, edge, oxygens, bins, base, reference, rows, mdanalysis_runs)


def mdtraj_row(positions, edge, oxygens, bins, base, reference, rows):
    """mdtraj.compute_rdf over the explicit list of the N(N-1)/2 O-O pairs (one frame, timed once)."""
    try:
        import mdtraj
    except ImportError:
        print("  mdtraj is not installed: no mdtraj row", flush=True)
        return
    n = len(positions)
    topology = mdtraj.Topology()
    chain = topology.add_chain()
    for m in range(n // 3):
        residue = topology.add_residue("HOH", chain)
        for name, symbol in (("O", "O"), ("H1", "H"), ("H2", "H")):
            topology.add_atom(name, mdtraj.element.get_by_symbol(symbol), residue)
    trajectory = mdtraj.Trajectory(positions[None].astype(np.float32), topology,
                                   unitcell_lengths=np.array([[edge] * 3]), unitcell_angles=np.array([[90.0] * 3]))
    # The pair list mdtraj needs, built with NumPy (Topology.select_pairs iterates over itertools.combinations:
    # tens of seconds for 5.7e8 pairs); its time is reported separately.  Filled row by row in int32 (4.5 GB for
    # 33712 oxygens): np.triu_indices would add 9 GB of int64 indices, and the whole run peaked at 22 GB with it.
    t0 = time.perf_counter()
    m = len(oxygens)
    selected = oxygens.astype(np.int32)
    pairs = np.empty((m * (m - 1) // 2, 2), dtype=np.int32)
    start = 0
    for i in range(m - 1):
        pairs[start:start + m - 1 - i, 0] = selected[i]
        pairs[start:start + m - 1 - i, 1] = selected[i + 1:]
        start += m - 1 - i
    pair_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    r, g = mdtraj.compute_rdf(trajectory, pairs, r_range=(0.0, R_MAX), n_bins=bins)
    seconds = time.perf_counter() - t0
    del pairs
    difference = float(np.max(np.abs(g - reference[0])))
    rows.append(dict(base, tool=f"mdtraj {mdtraj.__version__} compute_rdf", algorithm="all pairs (pair list)",
                     seconds_per_frame=seconds, frames=1, runs=1, pair_list_seconds=pair_seconds,
                     max_abs_g_difference=difference))
    print(f"  mdtraj compute_rdf               {seconds * 1e3:10.3f} ms/frame (+{pair_seconds:.2f} s for "
          f"the pair list); max |g - g_narumi| = {difference:.2e}", flush=True)


def mdanalysis_row(positions, elements, edge, oxygens, bins, base, reference, rows, max_runs=3):
    """MDAnalysis' InterRDF(O, O) on the same frame, held in memory (MemoryReader; MDAnalysis works in Angstrom).

    exclusion_block=(1, 1) drops the i == j distances (0 A, which would land in the first bin) and makes InterRDF
    normalise by N*N - N = N(N-1) ordered pairs: with g1 == g2, capped_distance returns every ordered pair (i, j)
    and (j, i), so the pair set and the normalisation are this engine's for identical selections.  Timed:
    InterRDF(...).run() for the one frame (construction included; the Universe is built beforehand), median of up
    to max_runs runs."""
    try:
        import MDAnalysis
        from MDAnalysis.analysis.rdf import InterRDF
        from MDAnalysis.coordinates.memory import MemoryReader
    except ImportError as error:
        print(f"  MDAnalysis is not importable ({error}): no MDAnalysis row", flush=True)
        return
    n = len(positions)
    t0 = time.perf_counter()
    residues = n // 3  # whole waters, O H H
    universe = MDAnalysis.Universe.empty(n, n_residues=residues, atom_resindex=np.repeat(np.arange(residues), 3),
                                         trajectory=False)
    universe.add_TopologyAttr("name", np.where(elements == "O", "O", "H"))
    universe.add_TopologyAttr("resname", ["HOH"] * residues)
    universe.load_new((positions * 10.0).astype(np.float32)[None], format=MemoryReader,
                      dimensions=np.array([edge * 10.0] * 3 + [90.0] * 3, dtype=np.float32))
    group = universe.select_atoms("name O")
    setup_seconds = time.perf_counter() - t0
    assert np.array_equal(group.indices, oxygens), "MDAnalysis selected other atoms than the engine"
    times = []
    while len(times) < max(1, max_runs):
        t0 = time.perf_counter()
        rdf = InterRDF(group, group, nbins=bins, range=(0.0, R_MAX * 10.0), norm="rdf", exclusion_block=(1, 1)).run()
        times.append(time.perf_counter() - t0)
        if times[-1] > 20.0:
            break
    seconds = statistics.median(times)
    g = rdf.results.rdf
    g_reference, counts_reference, centers_reference = reference
    assert np.allclose(rdf.results.bins / 10.0, centers_reference, atol=1e-9), "bin centres differ"
    difference = float(np.max(np.abs(g - g_reference)))
    counts = rdf.results.count
    count_difference = float(np.max(np.abs(counts - counts_reference)))
    total_difference = float(counts.sum() - counts_reference.sum())
    rows.append(dict(base, tool=f"MDAnalysis {MDAnalysis.__version__} InterRDF", algorithm="capped_distance (grid)",
                     seconds_per_frame=seconds, frames=1, runs=len(times), all_runs=times,
                     universe_setup_seconds=setup_seconds, max_abs_g_difference=difference,
                     max_abs_count_difference=count_difference, total_count_difference=total_difference,
                     total_count=float(counts.sum())))
    print(f"  MDAnalysis InterRDF              {seconds * 1e3:10.3f} ms/frame (median of {len(times)} runs: "
          f"{', '.join(f'{t:.3f}' for t in times)} s; Universe set-up {setup_seconds:.2f} s); "
          f"max |g - g_narumi| = {difference:.2e}, max |count difference| per bin = {count_difference:.0f}, "
          f"total {total_difference:+.0f} of {counts.sum():.0f} ordered pairs", flush=True)


def overhead_rows(rows, steps=3000, interval=100, repeats=3, edge_nm=9.99, platform_name="CUDA",
                  properties=(("Precision", "mixed"),)):
    """Seconds for `steps` steps of a ~100k-atom TIP3P box (PME, CUDA mixed) without RDF sampling, with RDFReporter
    every `interval` steps, and with the in-context RDFSampler every `interval` steps; medians of interleaved runs."""
    import copy
    import openmm
    import openmm.app as app
    import openmm.unit as unit
    forcefield = app.ForceField("amber14/tip3p.xml")
    modeller = app.Modeller(app.Topology(), [])
    modeller.addSolvent(forcefield, boxSize=openmm.Vec3(edge_nm, edge_nm, edge_nm) * unit.nanometer)
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer,
                                     constraints=app.HBonds, rigidWater=True)
    # The same System plus the sampler, in a second Context on the same GPU (a force cannot be switched off in a
    # Context): the plain runs measure the System without it.
    sampler = createSampler(modeller.topology, {"resname": "HOH", "name": "O"}, rMax=R_MAX, bins=240,
                            samplingInterval=interval)
    sampler_system = copy.deepcopy(system)
    sampler_system.addForce(sampler)

    def make_simulation(a_system):
        integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 0.002 * unit.picoseconds)
        return app.Simulation(modeller.topology, a_system, integrator, openmm.Platform.getPlatformByName(platform_name),
                              dict(properties))

    simulation = make_simulation(system)
    simulation.context.setPositions(modeller.positions)
    simulation.minimizeEnergy(maxIterations=100)
    simulation.context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    simulation.step(500)
    in_context = make_simulation(sampler_system)
    equilibrated = simulation.context.getState(getPositions=True, getVelocities=True)
    in_context.context.setPeriodicBoxVectors(*equilibrated.getPeriodicBoxVectors())
    in_context.context.setPositions(equilibrated.getPositions())
    in_context.context.setVelocities(equilibrated.getVelocities())
    n = system.getNumParticles()

    # The reporter is built and takes its first frame (selection, engine set-up) before the timed runs: that one-time
    # cost is reported separately, the runs measure the steady state.
    reporter = RDFReporter("/tmp/rdf_overhead.csv", interval, {"resname": "HOH", "name": "O"}, rMax=R_MAX, bins=240,
                           png=False)
    t0 = time.perf_counter()
    reporter.report(simulation, None)
    setup_seconds = time.perf_counter() - t0

    def run(a_simulation, with_reporter=False):
        a_simulation.reporters.clear()
        if with_reporter:
            a_simulation.reporters.append(reporter)
        a_simulation.context.getState(getEnergy=True)  # drain the queue before timing
        t0 = time.perf_counter()
        a_simulation.step(steps)
        a_simulation.context.getState(getEnergy=True)
        seconds = time.perf_counter() - t0
        a_simulation.reporters.clear()
        return seconds

    run(simulation, True)  # warm-up
    run(in_context)
    plain, with_rdf, with_sampler = [], [], []
    for _ in range(repeats):
        plain.append(run(simulation))
        with_rdf.append(run(simulation, True))
        with_sampler.append(run(in_context))
    # What one report costs now that the reporter samples inside the Context: the report() call (the sampling
    # kernel's launches on OpenMM's stream and the reporter's bookkeeping), 20 calls on the same state.
    report_call = []
    for _ in range(20):
        t0 = time.perf_counter()
        reporter.report(simulation, None)
        report_call.append(time.perf_counter() - t0)
    reporter.close()
    # One in-context frame end to end (host launch work + GPU), 20 frames queued then one download.
    in_context.context.getState(getEnergy=True)
    t0 = time.perf_counter()
    for _ in range(20):
        sampler.sample(in_context.context)
    sampler.getResult(in_context.context)
    sample_seconds = (time.perf_counter() - t0) / 20
    result = samplerResult(sampler, in_context.context)
    peak = float(result.r[int(np.argmax(result.g))])
    t_plain, t_rdf, t_sampler = (statistics.median(v) for v in (plain, with_rdf, with_sampler))
    reports = steps // interval
    rows.append(dict(part="overhead", atoms=n, steps=steps, interval=interval, seconds_without=t_plain,
                     seconds_with=t_rdf, overhead_percent=100 * (t_rdf - t_plain) / t_plain,
                     seconds_per_report=(t_rdf - t_plain) / reports, setup_seconds=setup_seconds,
                     report_call_seconds=statistics.median(report_call), frames=reporter.result().frames,
                     all_without=plain,
                     all_with=with_rdf, seconds_with_sampler=t_sampler,
                     sampler_overhead_percent=100 * (t_sampler - t_plain) / t_plain,
                     seconds_per_sample=(t_sampler - t_plain) / reports, sample_call_seconds=sample_seconds,
                     sampler_frames=result.frames, sampler_first_peak_nm=peak, all_with_sampler=with_sampler))
    print(f"  {n} atoms, {steps} steps (medians of {repeats} interleaved runs): {t_plain:.3f} s without, "
          f"{t_rdf:.3f} s with RDFReporter every {interval} steps ({100 * (t_rdf - t_plain) / t_plain:.2f}%), "
          f"{t_sampler:.3f} s with the in-context RDFSampler every {interval} steps "
          f"({100 * (t_sampler - t_plain) / t_plain:.2f}%); runs {plain}, {with_rdf}, {with_sampler}; reporter: "
          f"report() {statistics.median(report_call) * 1e3:.3f} ms"
          f"; sampler: {sample_seconds * 1e3:.3f} ms per frame, {result.frames} frames, first O-O peak at "
          f"{peak:.3f} nm", flush=True)


def markdown(rows, device):
    lines = [f"GPU: {device}", ""]
    gpu = [r for r in rows if r["part"] == "gpu"]
    if gpu:
        lines += ["| atoms | selection | path | rMax (nm) | bins | ms/frame | distinct pairs/s | paper metric (N1·N2)/s "
                  "| vs 38.47 G/s (4x GTX 480) |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in gpu:
            # The cell list skips far pairs: its rate is the all-pairs work it replaces, per second.
            equivalent = " (equiv.)" if r["algorithm"] == "cell-list" else ""
            lines.append(f"| {r['atoms']:,} | {r['selection']} | {r['algorithm']} | {r['r_max_nm']} | {r['bins']} | "
                         f"{r['seconds_per_frame'] * 1e3:.3f} | {r['pairs_per_second'] / 1e12:.3f} T{equivalent} | "
                         f"{r['paper_metric_per_second'] / 1e12:.3f} T | "
                         f"{r['paper_metric_per_second'] / PAPER_RATE:.0f}x |")
        lines.append("")
    compare = [r for r in rows if r["part"] == "compare"]
    if compare:
        fastest_cpu = min((r["seconds_per_frame"] for r in compare if "CUDA" not in r["tool"]), default=None)
        lines += [f"100k-atom water, {compare[0]['selection']}, rMax {R_MAX} nm, {compare[0]['bins']} bins, one frame "
                  f"({compare[0]['cpu_cores']} CPU cores):", "",
                  "| tool | path | ms/frame | speed-up over the fastest CPU row |", "| --- | --- | --- | --- |"]
        for r in compare:
            extra = f" (pair list: {r['pair_list_seconds']:.2f} s more)" if "pair_list_seconds" in r else ""
            if r.get("runs", 1) > 1:
                extra += f" (median of {r['runs']} runs)"
            lines.append(f"| {r['tool']} | {r['algorithm']} | {r['seconds_per_frame'] * 1e3:.3f}{extra} | "
                         f"{fastest_cpu / r['seconds_per_frame']:.1f}x |")
        lines.append("")
        for r in compare:
            if "max_abs_g_difference" in r:
                counts = (f"; pair counts per bin differ by at most {r['max_abs_count_difference']:.0f}, in total by "
                          f"{r['total_count_difference']:+.0f} of {r['total_count']:.0f}"
                          if "max_abs_count_difference" in r else "")
                lines.append(f"- {r['tool']}: max |g - g_narumi| = {r['max_abs_g_difference']:.2e}{counts}")
        lines.append("")
    for r in rows:
        if r["part"] == "overhead":
            lines.append(f"RDF sampling overhead: {r['atoms']:,}-atom TIP3P box, PME, CUDA mixed precision, "
                         f"{r['steps']} steps of 2 fs, O-O g(r) to {R_MAX} nm every {r['interval']} "
                         f"steps; medians of interleaved runs:")
            lines.append("")
            lines += ["| run | seconds | overhead | per frame |", "| --- | --- | --- | --- |",
                      f"| no RDF | {r['seconds_without']:.3f} | | |",
                      f"| RDFReporter (in-context, files updated every 10 reports) | {r['seconds_with']:.3f} | "
                      f"**{r['overhead_percent']:.2f}%** | {r['seconds_per_report'] * 1e3:.3f} ms (a report() call: "
                      f"{r['report_call_seconds'] * 1e3:.3f} ms) |",
                      f"| RDFSampler (in-context) | {r['seconds_with_sampler']:.3f} | "
                      f"**{r['sampler_overhead_percent']:.2f}%** | {r['seconds_per_sample'] * 1e3:.3f} ms (a sample() "
                      f"call end to end: {r['sample_call_seconds'] * 1e3:.3f} ms) |"]
            lines.append("")
            lines.append(f"RDFReporter one-time set-up at the first report: {r['setup_seconds']:.2f} s, not included. "
                         f"RDFSampler: {r['sampler_frames']} frames, first O-O peak at {r['sampler_first_peak_nm']:.3f} nm.")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000,4741632")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    parser.add_argument("--skip-mdtraj", action="store_true")
    parser.add_argument("--skip-mdanalysis", action="store_true")
    parser.add_argument("--mdanalysis-runs", type=int, default=3,
                        help="InterRDF runs to take the median of (fewer if one takes over 20 s; default 3)")
    parser.add_argument("--cpu-only", action="store_true",
                        help="no CUDA work even where a GPU is seen: only the comparison's CPU rows (this project's "
                             "CPU backend, mdtraj, MDAnalysis)")
    parser.add_argument("--skip-overhead", action="store_true")
    parser.add_argument("--skip-gpu-table", action="store_true")
    parser.add_argument("--overhead-only", action="store_true", help="only the reporter/sampler overhead")
    args = parser.parse_args()
    if args.overhead_only:
        args.skip_gpu_table = True
    if args.cpu_only and args.overhead_only:
        parser.error("--cpu-only and --overhead-only leave nothing to run")
    use_cuda = cudaAvailable() and not args.cpu_only
    device = "no CUDA device" if not args.cpu_only else "not used (--cpu-only)"
    if use_cuda:
        device = gpu_names() or "CUDA device"
    print(f"device: {device}; host: {platform.processor() or platform.machine()}, {os.cpu_count()} CPU cores",
          flush=True)
    template = None if args.overhead_only else water_template()
    rows = []
    if use_cuda and not args.skip_gpu_table:
        RDFEngine(3, [0, 1, 2], rMax=0.5, bins=10, backend="cuda").addFrame(np.zeros((3, 3)), np.eye(3) * 2)
        print("GPU pair rates:", flush=True)
        gpu_rows([int(s) for s in args.sizes.split(",")], template, rows)
    if not args.overhead_only:
        print("100k-atom water O-O comparison:", flush=True)
        comparison_rows(template, rows, args.skip_mdtraj, args.skip_mdanalysis, use_cuda, args.mdanalysis_runs)
    if use_cuda and not args.skip_overhead:
        print("RDF sampling overhead (RDFReporter and the in-context RDFSampler):", flush=True)
        overhead_rows(rows)
    write_report(markdown(rows, device), args.markdown, args.json, rows)


if __name__ == "__main__":
    sys.exit(main())
