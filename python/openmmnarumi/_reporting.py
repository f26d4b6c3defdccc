"""What every openmmnarumi reporter does to never lose data: files replaced atomically, updates while the simulation
runs, a final write at close(), at interpreter exit, on SIGTERM and from the finalizer, and a state file from which
a restarted simulation continues the same accumulation (append=True); output files claimed so that no two reporters
of a process write one file, and no write at all from a run that took no frame."""
import contextlib
import os
import signal
import tempfile
import threading
import time
import weakref
import zipfile

import numpy as np

from ._units import wholeNumber

__all__ = ["Accumulation", "UpdateSchedule", "checkAppendedSettings", "checkOutputPath", "claimOutputPaths",
           "deferredTermination", "loadArrays", "releaseOutputPaths", "replaceAtomically", "saveArrays", "statePath",
           "watchReporter"]

#: Updates are spaced so that writing takes at most this share of the wall time between them.
MAXIMUM_WRITE_SHARE = 0.02


def checkOutputPath(path, what="output file"):
    """Fails now, naming the path, if a file cannot be created there (rather than after a long run)."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"{what} {path!r} is a directory")
    if not os.path.isdir(directory):
        raise ValueError(f"{what} {path!r}: the directory {directory!r} does not exist")
    try:
        handle, probe = tempfile.mkstemp(prefix=".narumi-probe-", dir=directory)
    except OSError as error:
        raise ValueError(f"{what} {path!r}: cannot create files in {directory!r} ({error.strerror})") from None
    os.close(handle)
    os.unlink(probe)
    return path


#: The output files of this process's open reporters: real path -> the reporter and role that write it.
_claimedPaths = {}
_claimLock = threading.Lock()


def claimOutputPaths(owner, paths):
    """Claims a reporter's output files (role -> path; None for none) for this process, so that nothing overwrites
    them: ValueError naming both if two of them are one file (symbolic links resolved) or if another open reporter
    writes one of them.  Returns the claim, for releaseOutputPaths."""
    resolved = {}
    for role, path in paths.items():
        if path is None:
            continue
        real = os.path.realpath(path)
        if real in resolved:
            raise ValueError(f"{owner}: the {role} {path!r} is the same file as the {resolved[real][0]} "
                             f"{resolved[real][1]!r}; choose other names")
        resolved[real] = (role, os.fspath(path))
    with _claimLock:
        for real, (role, path) in resolved.items():
            if real in _claimedPaths:
                raise ValueError(f"{owner}: the {role} {path!r} is written by another open reporter "
                                 f"({_claimedPaths[real]}); close() that one first or choose another name")
        for real, (role, path) in resolved.items():
            _claimedPaths[real] = f"{owner}'s {role}"
    return list(resolved)


def releaseOutputPaths(claim):
    """Gives back what claimOutputPaths claimed (at close(), when a reporter is collected, at exit)."""
    with _claimLock:
        for real in claim:
            _claimedPaths.pop(real, None)


def statePath(path):
    """The state file beside a reporter's output, from which append=True continues: 'rdf.csv' -> 'rdf.csv.state.npz'."""
    return os.fspath(path) + ".state.npz"


def _umaskedMode():
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def replaceAtomically(path, write):
    """Calls write(temporaryPath) for a file in path's directory with path's extension, then renames it over path,
    so that a reader or a crash sees the old file or the new one, never half of one.  A symbolic link is written
    through: its target is replaced, the link stays."""
    path = os.path.realpath(path)
    directory = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=os.path.splitext(name)[1] or ".tmp", dir=directory)
    os.close(handle)
    try:
        write(temporary)
        with open(temporary, "rb+") as written:
            os.fsync(written.fileno())
        os.chmod(temporary, _umaskedMode())  # mkstemp's 0600 would hide the results from the user's group
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


class UpdateSchedule:
    """When a reporter rewrites its files during a run: after writeInterval reports or writeSeconds of wall time since
    the last update, whichever comes first, but never so often that writing takes more than MAXIMUM_WRITE_SHARE of
    the wall time (a map written in 1 s is rewritten at most every 50 s)."""

    def __init__(self, writeInterval=10, writeSeconds=60.0):
        if writeSeconds is not None and not float(writeSeconds) > 0:
            raise ValueError(f"writeSeconds = {writeSeconds} must be a positive number of seconds (or None)")
        self.writeInterval = None if writeInterval is None else wholeNumber("writeInterval", writeInterval, 1,
                                                                             " of reports")
        self.writeSeconds = None if writeSeconds is None else float(writeSeconds)
        self._reports = 0
        self._lastWrite = time.monotonic()
        self._lastDuration = 0.0

    def reported(self):
        """Counts a report; True if an update is due now."""
        self._reports += 1
        elapsed = time.monotonic() - self._lastWrite
        if elapsed < self._lastDuration / MAXIMUM_WRITE_SHARE:
            return False
        return ((self.writeInterval is not None and self._reports >= self.writeInterval) or
                (self.writeSeconds is not None and elapsed >= self.writeSeconds))

    def written(self, seconds):
        """Records an update that took seconds."""
        self._reports = 0
        self._lastWrite = time.monotonic()
        self._lastDuration = seconds


class Accumulation:
    """The data of one reporter's run, apart from the reporter object so that the finalizer and the exit handler can
    write it after the reporter is gone.  Subclasses implement snapshot() (what is to be written, read from the
    engine once per update; None before the first frame) and writeResults(snapshot, final)."""

    def __init__(self, schedule):
        self.schedule = schedule
        self.claim = ()         # the output files (claimOutputPaths), released after the final write
        self.finished = False
        self.lastStep = -1      # the step of the last frame taken
        self.writtenStep = -1   # the lastStep of the files on disk
        self.framesTaken = 0    # this run's frames: a run without one writes nothing (an earlier run's files stay)
        self._lock = threading.Lock()

    def snapshot(self):
        raise NotImplementedError

    def writeResults(self, snapshot, final):
        raise NotImplementedError

    def takeFrame(self, step, take):
        """Calls take() (which adds step's frame) and records step with it, as one update: SIGTERM arriving in
        between waits until both are done, so that the files never hold a frame without its step.  Then writes an
        update when one is due."""
        with deferredTermination():
            take()
            self.lastStep = step
            self.framesTaken += 1
        self.reported()

    def reported(self):
        """Counts a report whose frame was taken: writes an update when one is due."""
        if self.schedule.reported():
            start = time.monotonic()
            self.write(final=False)
            self.schedule.written(time.monotonic() - start)

    def write(self, final):
        with self._lock:
            if self.framesTaken == 0:
                return  # nothing new: the files on disk (an earlier run's, with append=True) stay as they are
            snapshot = self.snapshot()
            if snapshot is not None:
                self.writeResults(snapshot, final)
                self.writtenStep = self.lastStep

    def finish(self):
        """The final write (close(), interpreter exit, finalizer); once only."""
        with self._lock:
            if self.finished:
                return
            self.finished = True
        try:
            self.write(final=True)
        finally:
            releaseOutputPaths(self.claim)


def checkAppendedSettings(appended, signature, path):
    """ValueError naming the first setting of signature (name -> array) that differs from the state file's."""
    for key, value in signature.items():
        if key not in appended:
            raise ValueError(f"append=True: {path!r} holds no {key} (written by an earlier version or another "
                             "method); use another file or append=False")
        earlier = appended[key]
        if earlier.shape != value.shape or not np.array_equal(earlier, value):
            raise ValueError(f"append=True: {path!r} was written with other settings ({key} differs); use another "
                             "file or append=False")


def watchReporter(reporter, accumulation):
    """Makes accumulation.finish() run when reporter is collected or the interpreter exits, and SIGTERM end the
    interpreter through SystemExit (so that both happen) where Python's default would kill it without cleanup."""
    _terminateThroughSystemExit()
    return weakref.finalize(reporter, accumulation.finish)


class _Termination:
    deferring = 0    # depth of deferredTermination blocks
    pending = None   # the signal that arrived inside one


def _raiseSystemExit(signum, frame):
    if _Termination.deferring:
        _Termination.pending = signum
        return
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def deferredTermination():
    """A block that SIGTERM does not interrupt (where the reporters made it raise SystemExit): the SystemExit is
    raised when the block ends."""
    _Termination.deferring += 1
    try:
        yield
    finally:
        _Termination.deferring -= 1
        if not _Termination.deferring and _Termination.pending is not None:
            signum, _Termination.pending = _Termination.pending, None
            raise SystemExit(128 + signum)


def _terminateThroughSystemExit():
    # Only the default action is replaced: a handler the user installed stays, and so does Python's in other threads.
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _raiseSystemExit)


def saveArrays(path, **arrays):
    """An .npz state file, replaced atomically."""
    def write(temporary):
        with open(temporary, "wb") as out:  # a file object: np.savez would append .npz to a name
            np.savez(out, **arrays)
    replaceAtomically(path, write)


def loadArrays(path, what, required=()):
    """The arrays of a state file, as a dict; FileNotFoundError naming it if it is missing, ValueError naming it if it
    cannot be read or lacks one of the required arrays."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"append=True: no state file {path!r} from an earlier run of this {what}")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"append=True: the state file {path!r} is damaged ({type(error).__name__}: {error}); "
                         "use another file or append=False") from None
    missing = [key for key in required if key not in arrays]
    if missing:
        raise ValueError(f"append=True: the state file {path!r} is damaged or not a {what}'s: it holds no "
                         f"{', '.join(missing)}; use another file or append=False")
    return arrays
