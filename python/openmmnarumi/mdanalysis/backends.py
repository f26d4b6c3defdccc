"""Backends of MDAnalysis' parallel runs for this package's classes.

ForkServerBackend: ``backend="multiprocessing"`` with workers forked from a fresh server process: a process that
has used CUDA cannot fork workers that use it, and the analyses run their engines on the GPU.

DaskClusterBackend: MDAnalysis' parallel run on a dask.distributed cluster.

MDAnalysis' own ``backend="dask"`` runs ``dask.compute(scheduler="processes")``, a process pool on the local
machine, whatever cluster a ``Client`` is connected to.  This backend submits the parts of the run to a
``distributed.Client`` instead, so that the same analysis runs on a LocalCluster or a cluster of many machines.
"""
from ._mdanalysis import BackendBase, BackendMultiprocessing

__all__ = ["DaskClusterBackend", "ForkServerBackend"]


class ForkServerBackend(BackendMultiprocessing):
    """MDAnalysis' multiprocessing backend with the "forkserver" start method (what ``backend="multiprocessing"``
    becomes for this package's classes): workers never inherit the caller's CUDA context.  As with "spawn", a
    script that runs it needs the ``if __name__ == "__main__":`` guard."""

    def apply(self, func, computations):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        # A process pool executor, not multiprocessing.Pool: a worker that dies (or cannot start) breaks the run
        # with BrokenProcessPool instead of being replaced forever.
        context = multiprocessing.get_context("forkserver")
        # The server imports MDAnalysis once and every worker forks from it with that done; nothing that touches
        # CUDA is preloaded (a forked child of a process that initialized CUDA cannot use it).
        context.set_forkserver_preload(["numpy", "MDAnalysis", "MDAnalysis.analysis.base"])
        with ProcessPoolExecutor(self.n_workers, mp_context=context) as pool:
            return list(pool.map(func, computations))


class DaskClusterBackend(BackendBase):
    """Runs the parts of an MDAnalysis analysis on a dask.distributed cluster.

    client: a ``distributed.Client``, or the scheduler's address (``"tcp://host:8786"``), connected to at once
    (``timeout`` seconds; an unreachable scheduler is a ConnectionError naming the address).  n_workers: how many
    parts to split the frames into by default (default: the cluster's worker count).  A part that fails on a
    worker raises its exception from ``run()``: there is never a partial result.
    """

    def __init__(self, client, n_workers=None, timeout=10):
        try:
            import distributed
        except ImportError:
            raise ImportError("DaskClusterBackend needs dask.distributed: pip install 'openmm-narumi[mdanalysis]' "
                              "(or pip install 'dask[distributed]')") from None
        if isinstance(client, str):
            address = client
            try:
                client = distributed.Client(address, timeout=timeout)
            except (OSError, TimeoutError) as error:
                raise ConnectionError(f"no dask scheduler answered at {address} within {timeout} s: {error}") from None
        elif not isinstance(client, distributed.Client):
            raise TypeError(f"client must be a distributed.Client or a scheduler address, got {type(client).__name__}")
        self.client = client
        if n_workers is None:
            n_workers = max(1, len(client.scheduler_info().get("workers", {})))
        super().__init__(n_workers=n_workers)

    def apply(self, func, computations):
        """func(part) for every part on the cluster, results in the order of the parts."""
        futures = self.client.map(func, computations, pure=False)
        return self.client.gather(futures)  # the first failed part's exception is raised here
