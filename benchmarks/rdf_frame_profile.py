"""Where the time of one all-pairs RDF frame goes (100k-atom water box, rMax 1.2 nm, 240 bins).

Prints the wall time of one frame on its own (addFrame, then the counts read back) and per frame of a run of frames
(the trajectory case, where the engine overlaps the host's gather and upload of a frame with the GPU's counting of
the one before), so that the per-frame cost outside the pair kernel is visible.  Run under Nsight Compute for the kernels:
    ncu --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel \
        python3 -m benchmarks.rdf_frame_profile --frames 3
"""
import argparse
import statistics
import time

import numpy as np

from benchmarks.rdf_speed import water_box, water_template
from openmmnarumi.rdf import RDFEngine


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--atoms", type=int, default=100_000)
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--precision", choices=["float64", "float32"], default="float64")
    args = parser.parse_args()
    positions, _, edge = water_box(args.atoms, water_template())
    positions = positions.astype(args.precision)
    n = len(positions)
    box = np.diag([edge] * 3)
    pairs = n * (n - 1) // 2
    engine = RDFEngine(n, np.arange(n), rMax=1.2, bins=240, backend="cuda", algorithm="all-pairs")
    engine.addFrame(positions, box)  # warm-up
    single = []
    for _ in range(args.frames):
        t0 = time.perf_counter()
        engine.addFrame(positions, box)
        engine.pairCounts()
        single.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    for _ in range(args.frames):
        engine.addFrame(positions, box)
    engine.pairCounts()
    run = (time.perf_counter() - t0) / args.frames
    median = statistics.median(single)
    print(f"{n} atoms ({args.precision}): one frame {median * 1e3:.3f} ms ({pairs / median / 1e12:.3f} T distinct "
          f"pairs/s); {args.frames} frames in a row {run * 1e3:.3f} ms/frame ({pairs / run / 1e12:.3f} T)")


if __name__ == "__main__":
    main()
