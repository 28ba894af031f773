# Generated from chapters/A15_compilation_cache.md by `make export`: edit the chapter, not this file.


"""Compiling StableHLO with XLA through PJRT, and the persistent compilation cache: jaxlib and
the standard library only, no tracing, so that chapter 17's runner can use it alone."""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.version import __version__ as jaxlib_version


def compile_options(device) -> tuple:
    """(the device list, the options) to compile a program for `device`, or for a tuple of
    devices: then XLA partitions the program over them, numbered in that order (chapter 16).
    Either way the options name the devices: without, a program runs on the client's first."""
    device = device if isinstance(device, tuple) else (device,)
    options = xc.CompileOptions()
    build = options.executable_build_options
    build.device_assignment = xc.DeviceAssignment.create(np.array([[d.id for d in device]]))
    if len(device) > 1:
        options.num_partitions = len(device)
        build.use_spmd_partitioning = True
        build.use_shardy_partitioner = True
    return xc.DeviceList(device), options


def hlo_shardings(op_shardings, n: int) -> list:
    """XLA's shardings of a program's `n` parameters or results, as `HloSharding`s."""
    hlos = [xc.HloSharding.from_proto(s) for s in op_shardings or ()]
    return hlos if len(hlos) == n else [xc.HloSharding.replicate()] * n


@contextlib.contextmanager
def jax_hidden():
    """Hide JAX from jaxlib inside the block. Splitting an array of several devices into its
    pieces (chapters 16 and 17), jaxlib's C++ tries `import jax` to give each piece a sharding of
    JAX's; with the real JAX installed that would succeed, and autodidax never loads JAX. A None
    entry makes the import fail, and jaxlib falls back to a sharding of its own."""
    if "jax" in sys.modules:
        yield
        return
    sys.modules["jax"] = None
    try:
        yield
    finally:
        del sys.modules["jax"]


def backend_compile(text: str, device, compiler_options: dict | None = None):
    """XLA compiles StableHLO `text` for `device` (or a tuple of devices) and loads it there.
    A `ModuleText` with host callbacks (chapter 15) passes its Python functions along, as a
    parsed module. `compiler_options`: XLA's debug options by name, such as `xla_dump_to`
    (chapter 19), set as JAX's `compile(compiler_options=...)` sets them."""
    device_list, options = compile_options(device)
    if compiler_options:
        options.env_option_overrides = list(compiler_options.items())
    client = device_list[0].client
    callbacks = getattr(text, "host_callbacks", ())
    if not callbacks:
        return client.compile_and_load(text, device_list, options)
    from autodidax.lowering import make_ir_context   # only programs traced here have callbacks
    with make_ir_context():
        module = ir.Module.parse(text)
    return client.compile_and_load(module, device_list, options, host_callbacks=list(callbacks))


_HLO_DTYPES = {"pred": "bool", "s8": "int8", "s16": "int16", "s32": "int32", "s64": "int64",
               "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
               "f16": "float16", "f32": "float32", "f64": "float64"}


def result_types(loaded) -> list[tuple]:
    """(shape, dtype name) of each result of a compiled program, from the first line of its HLO:
    `HloModule name, ..., entry_computation_layout={(f32[3]{0})->(f32[3]{0}, s32[]{})}`."""
    header = loaded.hlo_modules()[0].to_string().split("\n", 1)[0]
    layout = header[header.index("entry_computation_layout={") + 26:]
    depth = 1
    for end, ch in enumerate(layout):
        depth += (ch == "{") - (ch == "}")
        if depth == 0:
            break
    results = layout[:end].split(")->", 1)[1]
    return [(tuple(int(d) for d in dims.split(",") if d), _HLO_DTYPES[dtype])
            for dtype, dims in re.findall(r"(\w+)\[([\d,]*)\]", results) if dtype != "token"]


cache_stats = {"memory_hits": 0, "disk_hits": 0, "compiles": 0, "dispatch_hits": 0}
_MAGIC = b"autodidax executable, version 2\n"
_UNSET = object()
_cache_dir_setting = _UNSET


def get_cache_dir() -> Path | None:
    """The folder of the persistent compilation cache, or None when it is off."""
    if _cache_dir_setting is not _UNSET:
        return _cache_dir_setting
    env = os.environ.get("AUTODIDAX_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "0", "off") else Path(env).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autodidax"


def set_cache_dir(path):
    """Keep compiled programs in `path` from now on; None turns the persistent cache off.
    Returns the previous setting: pass it back to restore it."""
    global _cache_dir_setting
    previous = _cache_dir_setting
    _cache_dir_setting = path if path is _UNSET or path is None else Path(path).expanduser()
    return previous


def _host_cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next((line for line in f if line.startswith("flags")), "")
    except OSError:
        return ""


# Flags that change what XLA writes beside the program, never the program: not in the key (the
# list follows `xla_flags_to_exclude_from_cache_key` in jax/_src/cache_key.py).
_UNKEYED_FLAGS = ("xla_dump_", "xla_force_host_platform_device_count", "xla_gpu_cuda_data_dir")


def _xla_flags() -> list[str]:
    """The XLA flags of this process, from the environment and the command line, sorted."""
    flags = (os.environ.get("XLA_FLAGS", "") + " " + os.environ.get("LIBTPU_INIT_ARGS", "")
             ).split() + [a for a in sys.argv if a.startswith("--xla")]
    return sorted(f for f in flags if not f.lstrip("-").startswith(_UNKEYED_FLAGS))


def _keyed_options(device) -> bytes:
    """The compile options, with the XLA flags read into them, less the unkeyed ones."""
    debug = (options := compile_options(device)[1]).executable_build_options.debug_options
    debug.xla_force_host_platform_device_count, debug.xla_dump_to = 0, ""
    return options.SerializeAsString()


def cache_key(text: str | bytes, device) -> str:
    """The persistent cache's name for `text` compiled for `device` (or a tuple of devices).
    `text` may also be a module's MLIR bytecode, which XLA compiles as well (chapter 17)."""
    h = hashlib.sha256(_MAGIC)
    devices = device if isinstance(device, tuple) else (device,)
    ids = ",".join(str(d.id) for d in devices)
    device = devices[0]
    topology = xc.get_topology_for_devices(list(devices)).fingerprint()
    for part in (jaxlib_version, device.platform, device.device_kind, str(topology),
                 device.client.platform_version, _host_cpu() if device.platform == "cpu" else "",
                 ids, *_xla_flags(), _keyed_options(devices), text):
        h.update((part if isinstance(part, bytes) else part.encode()) + b"\0")
    return h.hexdigest()


_warned: set = set()


def _safe_folder(folder: Path) -> bool:
    """Whether `folder` is ours alone. Whoever can write an entry can run code in every process
    that loads it (a CPU entry holds machine code), so a folder that another user owns, or that
    group or others may write to, is not used: a warning says why, once."""
    try:
        st = os.stat(folder)
    except OSError:
        return True                          # not there yet: `_cache_write` makes it, ours
    if st.st_uid == os.getuid() and not st.st_mode & 0o022:
        return True
    if folder not in _warned:
        _warned.add(folder)
        why = "another user owns it" if st.st_uid != os.getuid() else "others may write to it"
        warnings.warn(f"the compilation cache folder {folder} is not used: {why}, and an entry "
                      "written there could run code in this process. Make it yours alone "
                      "(chmod go-w), or choose another with AUTODIDAX_CACHE_DIR.", stacklevel=2)
    return False


def _read_entry(path: Path, limit: int) -> bytes | None:
    """The bytes of the regular file at `path`, if it is one of at most `limit` bytes (no limit
    if negative): a symbolic link, a FIFO or a device there is never opened or read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or 0 <= limit < st.st_size:
            return None
        return f.read()


def _cache_read(path: Path, device, key: str):
    data = _read_entry(path, max_size[0])
    n = len(_MAGIC) + 32
    if data is None or len(data) < n or data[:n] != _MAGIC + hashlib.sha256(data[n:]).digest():
        return None                                     # cut short, edited or foreign
    if data[n:n + len(key)] != key.encode():           # another program's entry, renamed
        return None
    device_list, options = compile_options(device)
    try:
        loaded = device_list[0].client.deserialize_executable(
            data[n + len(key):], device_list, options)
    except Exception:                                   # PJRT refuses it: compile again
        return None
    try:
        os.utime(path)                                  # used now: the last to be evicted
    except OSError:
        pass
    return loaded


def _cache_write(path: Path, loaded, key: str) -> None:
    tmp = None
    try:
        payload = key.encode() + loaded.serialize()
        if 0 <= max_size[0] < len(payload) + len(_MAGIC) + 32:
            return                                      # larger than the whole cache may be
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, path)
        _evict(path.parent, max_size[0])
    except Exception:              # a read-only folder, a full disk: just do not keep it
        if tmp is not None and os.path.exists(tmp):
            os.remove(tmp)


max_size = [2 ** 30]     # bytes of the persistent cache; -1: no limit (`set_cache_max_size`)


def set_cache_max_size(n: int) -> None:
    max_size[0] = int(n)


def _evict(folder: Path, limit: int) -> None:
    """Delete the entries of `folder` used least recently until the rest fit in `limit`, and the
    temporary files that writers killed before their rename left over an hour ago."""
    entries, stale = [], time.time() - 3600
    with os.scandir(folder) as found:
        for e in found:
            st = e.stat(follow_symlinks=False)
            if e.name.startswith(".tmp-") and st.st_mtime < stale:
                entries.append((-1, 0, e.path))         # removed whatever the limit
            elif e.name.endswith(".xla") and stat.S_ISREG(st.st_mode):
                entries.append((st.st_mtime_ns, st.st_size, e.path))
    total = sum(size for _, size, _ in entries)
    for mtime, size, entry in sorted(entries):          # stale temporary files, then the oldest
        if mtime >= 0 and (limit < 0 or total <= limit):
            break
        try:
            os.remove(entry)
            total -= size
        except OSError:                                 # another process removed it first
            pass


def load_or_compile(text: str, device):
    """The loaded executable of `text` on `device`: from the persistent cache, or compiled."""
    # A program that calls back into Python is never kept on disk: its callbacks are Python
    # functions of this process, which neither the text nor the bytes on disk hold.
    folder = None if getattr(text, "host_callbacks", ()) else get_cache_dir()
    if folder is not None and not _safe_folder(folder):
        folder = None
    key = None if folder is None else cache_key(text, device)
    path = None if folder is None else folder / f"{key}.xla"
    if path is not None:
        loaded = _cache_read(path, device, key)
        if loaded is not None:
            cache_stats["disk_hits"] += 1
            return loaded
    loaded = backend_compile(text, device)
    cache_stats["compiles"] += 1
    if path is not None:
        _cache_write(path, loaded, key)
    return loaded
