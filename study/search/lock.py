"""
A folder's lock: a file naming the process that holds it (make advise's: a folder holds one search
at a time), taken over when that process is gone.
"""

import os


class Busy(ValueError):
    pass


def holder(path):
    """The process id a lock file names while that process lives, else None."""
    try:
        with open(path) as f:
            pid = int(f.read().strip())
        os.kill(pid, 0)
    except (OSError, ValueError) as e:
        return pid if isinstance(e, PermissionError) else None
    return pid


def refuse_if_held(folder, name):
    """The lock's path; Busy's one line while another search's process holds it."""
    path = os.path.join(folder, name)
    pid = holder(path)
    if pid is not None:
        raise Busy(f"{folder} is being searched by process {pid} (its lock: {path}); wait for it or stop it")
    return path


def take_lock(folder, name):
    """The folder's lock, a file `name` in it naming this process (make advise's: a folder holds one
    search at a time); refused while another search's process lives. A lock whose process is gone
    (a killed search) is taken over. Returns its path."""
    os.makedirs(folder, exist_ok=True)
    path = refuse_if_held(folder, name)
    if os.path.exists(path):
        os.remove(path)
    try:
        descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        raise Busy(f"{folder} is being searched by another process (its lock: {path})") from None
    with os.fdopen(descriptor, "w") as f:
        f.write(str(os.getpid()))
    return path
