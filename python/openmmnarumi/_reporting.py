"""What every openmmnarumi reporter does to never lose data: files replaced atomically, updates while the simulation
runs, a final write at close(), at interpreter exit, on SIGTERM and from the finalizer, and a state file from which
a restarted simulation continues the same accumulation (append=True)."""
import os
import signal
import tempfile
import threading
import time
import weakref

import numpy as np

__all__ = ["Accumulation", "UpdateSchedule", "checkAppendedSettings", "checkOutputPath", "loadArrays",
           "replaceAtomically", "saveArrays", "statePath", "watchReporter"]

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


def statePath(path):
    """The state file beside a reporter's output, from which append=True continues: 'rdf.csv' -> 'rdf.csv.state.npz'."""
    return os.fspath(path) + ".state.npz"


def _umaskedMode():
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def replaceAtomically(path, write):
    """Calls write(temporaryPath) for a file in path's directory with path's extension, then renames it over path,
    so that a reader or a crash sees the old file or the new one, never half of one."""
    path = os.fspath(path)
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
        if writeInterval is not None and int(writeInterval) < 1:
            raise ValueError(f"writeInterval = {writeInterval} must be a number of reports >= 1 (or None)")
        if writeSeconds is not None and not float(writeSeconds) > 0:
            raise ValueError(f"writeSeconds = {writeSeconds} must be a positive number of seconds (or None)")
        self.writeInterval = None if writeInterval is None else int(writeInterval)
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
        self.finished = False
        self.lastStep = -1      # the step of the last frame taken
        self.writtenStep = -1   # the lastStep of the files on disk
        self._lock = threading.Lock()

    def snapshot(self):
        raise NotImplementedError

    def writeResults(self, snapshot, final):
        raise NotImplementedError

    def reported(self):
        """Call after each report's frame: writes an update when one is due."""
        if self.schedule.reported():
            start = time.monotonic()
            self.write(final=False)
            self.schedule.written(time.monotonic() - start)

    def write(self, final):
        with self._lock:
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
        self.write(final=True)


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


def _raiseSystemExit(signum, frame):
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


def loadArrays(path, what):
    """The arrays of a state file, as a dict; FileNotFoundError naming it if it is missing."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"append=True: no state file {path!r} from an earlier run of this {what}")
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}
