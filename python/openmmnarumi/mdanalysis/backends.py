"""Backends of MDAnalysis' parallel runs for this package's classes.

ForkServerBackend: ``backend="multiprocessing"`` with workers forked from a fresh server process: a process that
has used CUDA cannot fork workers that use it, and the analyses run their engines on the GPU.

DaskClusterBackend: MDAnalysis' parallel run on a dask.distributed cluster.

MDAnalysis' own ``backend="dask"`` runs ``dask.compute(scheduler="processes")``, a process pool on the local
machine, whatever cluster a ``Client`` is connected to.  This backend submits the parts of the run to a
``distributed.Client`` instead, so that the same analysis runs on a LocalCluster or a cluster of many machines.
"""
from contextlib import contextmanager, nullcontext

from ._mdanalysis import BackendBase, BackendMultiprocessing

__all__ = ["DaskClusterBackend", "ForkServerBackend"]


def _refersToMain(objects):
    """Whether pickling objects names anything of the __main__ module (a class or function defined in the caller's
    script), or cannot be told (True)."""
    import pickle
    try:
        return b"__main__" in pickle.dumps(objects, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return True


@contextmanager
def _workersWithoutTheMainModule():
    """Workers started meanwhile do not run the caller's main module again, as "forkserver" and "spawn" workers
    otherwise do: a script without an ``if __name__ == "__main__":`` guard would start its analysis again in each."""
    from multiprocessing import spawn
    original = spawn.get_preparation_data

    def withoutMain(name):
        data = original(name)
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
        return data

    spawn.get_preparation_data = withoutMain
    try:
        yield
    finally:
        spawn.get_preparation_data = original


class ForkServerBackend(BackendMultiprocessing):
    """MDAnalysis' multiprocessing backend with the "forkserver" start method (what ``backend="multiprocessing"``
    becomes for this package's classes): workers never inherit the caller's CUDA context.  The workers do not run the
    caller's script again, so plain scripts and notebooks need no ``if __name__ == "__main__":`` guard, unless the
    analysis refers to a class or function defined in that script (the workers then need it, and so the guard)."""

    def apply(self, func, computations):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        # A process pool executor, not multiprocessing.Pool: a worker that dies (or cannot start) breaks the run
        # with BrokenProcessPool instead of being replaced forever.
        context = multiprocessing.get_context("forkserver")
        # The server imports MDAnalysis once and every worker forks from it with that done; nothing that touches
        # CUDA is preloaded (a forked child of a process that initialized CUDA cannot use it).
        context.set_forkserver_preload(["numpy", "MDAnalysis", "MDAnalysis.analysis.base"])
        from concurrent.futures.process import BrokenProcessPool
        needsMain = _refersToMain((func, computations))
        try:
            with nullcontext() if needsMain else _workersWithoutTheMainModule():
                with ProcessPoolExecutor(self.n_workers, mp_context=context) as pool:
                    return list(pool.map(func, computations))
        except BrokenProcessPool as error:
            if not needsMain:
                raise
            raise RuntimeError(
                "the multiprocessing workers ended before their work: this analysis uses a class or function defined "
                "in the main script, so each worker runs that script again; run the analysis under "
                "'if __name__ == \"__main__\":', or define that class or function in a module the script imports") from error


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
