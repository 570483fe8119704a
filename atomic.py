"""
Atomic writes, the one home of the idea: a file, or a folder, is written beside its place under a
temporary name and renamed into place, so a reader never sees half of it, a killed run leaves
nothing broken behind, and parallel writers of the same file do not clash. Every result, cache
file, subset, report, figure and saved checkpoint is written this way.

Nothing here imports torch: make's calls of result.py write through it.
"""

import os
import shutil


def write_atomically(path, write):
    """write(f) into a temporary file beside `path`, then rename it to `path`."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def check_can_hold(flag, folder):
    """Refuse in one line, before any work, a folder a run would write into (or make) where a file
    stands on its path: the write would fail only once the run had trained."""
    path = os.path.abspath(folder)
    while not os.path.exists(path):
        path = os.path.dirname(path)
    if not os.path.isdir(path):
        raise ValueError(f"{flag} {folder}: {path} is a file, where a folder would go")


def write_folder_atomically(folder, fill):
    """fill(tmp) writes a new folder's files into a temporary folder beside `folder`, which is then
    renamed to `folder` (which must not exist); on any failure nothing is left behind."""
    tmp = f"{folder.rstrip(os.sep)}.tmp{os.getpid()}"
    try:
        os.makedirs(tmp)
        fill(tmp)
        os.replace(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
