# Generated from chapters/A7_processes.md by `make export`: edit the chapter, not this file.


"""Devices in several processes joined into one computation by `distributed.initialize`, and
global arrays made of the parts each process holds."""
from __future__ import annotations

import atexit
import collections
import os

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client as xc

from autodidax.core import ShapedArray
from autodidax.runtime import (Array, backend_clients, cpu_client_options, device_put,
                               process_count)
from autodidax.sharding import is_local_device, to_xla_sharding
from autodidax.tree_util import tree_leaves, tree_map


class _Distributed:
    """JAX's `jax.distributed`: join this process with others into one computation over all
    their devices, through PJRT's coordination service."""

    def __init__(self):
        self.service = self.client = None
        self.process_id, self.num_processes = 0, 1
        atexit.register(self.shutdown)          # as JAX does, at the end of the program

    def initialize(self, coordinator_address=None, num_processes=None, process_id=None,
                   local_device_ids=None, cluster_detection_method=None,
                   initialization_timeout=300, heartbeat_timeout_seconds=100,
                   shutdown_timeout_seconds=300, coordinator_bind_address=None):
        """Start (in process 0) and connect to the coordination service at
        `coordinator_address` ("host:port"); the CPU client made afterwards spans all the
        processes. Waits until all `num_processes` have connected."""
        if backend_clients:                                             # JAX's words
            raise RuntimeError("jax.distributed.initialize() must be called before any JAX "
                               "calls that might initialise the XLA backend. This includes "
                               "any computation, but also calls to jax.devices, "
                               "jax.device_put, and others.")
        if cluster_detection_method not in (None, "deactivate"):
            raise NotImplementedError("autodidax detects no clusters (Slurm, Open MPI, TPU): "
                                      "give coordinator_address, num_processes and process_id")
        coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
        if coordinator_address is None:                                 # JAX's words
            raise ValueError("coordinator_address should be defined.")
        if num_processes is None:
            raise ValueError("Number of processes must be defined.")
        if process_id is None:
            raise ValueError("The process id of the current process must be defined.")
        if not isinstance(process_id, int):
            raise TypeError(f"process_id must be a nonnegative int. Got "
                            f"process_id={process_id} of type {type(process_id)}.")
        if not isinstance(num_processes, int):
            raise TypeError(f"num_processes must be a positive int. Got "
                            f"num_processes={num_processes} of type {type(num_processes)}.")
        if not 0 <= process_id < num_processes:
            raise ValueError(f"process_id and num_processes must be nonnegative, with "
                             f"process_id < num_processes. Got process_id={process_id}, "
                             f"num_processes={num_processes}.")
        # The service listens at the coordinator's address only (JAX's default: every address).
        bind = coordinator_bind_address or os.environ.get(
            "JAX_COORDINATOR_BIND_ADDRESS", coordinator_address)
        # `local_device_ids` chooses GPUs in JAX; the CPU client has nothing to choose.
        if process_id == 0:
            if self.service is not None:
                raise RuntimeError("distributed.initialize should only be called once.")
            self.service = _jax.get_distributed_runtime_service(
                bind, num_processes, heartbeat_timeout=heartbeat_timeout_seconds,
                shutdown_timeout=shutdown_timeout_seconds)
        if self.client is not None:
            raise RuntimeError("distributed.initialize should only be called once.")
        self.client = _jax.get_distributed_runtime_client(
            coordinator_address, process_id, init_timeout=initialization_timeout,
            use_compression=True, heartbeat_timeout=heartbeat_timeout_seconds)
        self.client.connect()                   # returns once every process has connected
        self.process_id, self.num_processes = process_id, num_processes
        cpu_client_options.update(
            distributed_client=self.client, node_id=process_id, num_nodes=num_processes,
            collectives=_jax.make_gloo_tcp_collectives(distributed_client=self.client))

    def is_initialized(self) -> bool:
        return self.client is not None

    def shutdown(self) -> None:
        """Leave the computation, once every process has come here too. Does nothing if
        `initialize` was not called."""
        if self.client is not None:
            self.client.shutdown()
            self.client = None
        if self.service is not None:            # process 0's service goes last
            self.service.shutdown()
            self.service = None
        for key in ("distributed_client", "node_id", "num_nodes", "collectives"):
            cpu_client_options.pop(key, None)


distributed = _Distributed()


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None) -> Array:
    """The global array of `shape`, laid out as `sharding`, made of `arrays`: one array per
    device of this process that the sharding uses, on that device, holding its part."""
    arrays, name = list(arrays), "make_array_from_single_device_arrays"
    for a in arrays:
        if type(a) is not Array or a._sharding is not None:
            raise TypeError(f"jax.{name} takes arrays each on one device (from "
                            f"device_put(x, device)), got {type(a).__name__} {a!r}")
    if dtype is None:                                                   # JAX's words
        if not arrays:
            raise ValueError(f"If the Array has no addressable shards, `dtype` must be "
                             f"provided via the `dtype` argument to `jax.{name}`.")
        dtype = arrays[0].dtype
    dtype = np.dtype(dtype)
    if arrays and arrays[0].dtype != dtype:
        raise ValueError(f"If `dtype` is provided to `jax.{name}`, it must match the dtype of "
                         f"the addressable shards. Got dtype={dtype} and shard "
                         f"dtype={arrays[0].dtype}`.")
    local = [d for d in sharding._device_assignment if is_local_device(d)]
    by_id = {a.device.id: a for a in arrays}
    if len(arrays) != len(local):                                       # JAX's words
        raise ValueError(f"Expected {len(local)} per-device arrays (this is how many devices "
                         f"are addressable by the sharding), but got {len(arrays)}")
    if len(by_id) != len(arrays):
        raise ValueError(f"When making an array from single-device arrays, the input arrays "
                         f"must be from distinct devices, but got device IDs "
                         f"{[a.device.id for a in arrays]}")
    missing, extra = {d.id for d in local} - set(by_id), set(by_id) - {d.id for d in local}
    if missing or extra:
        message = "Addressable devices and per-device arrays devices do not match."
        if missing:
            message += (f" Sharding contains devices {missing} that are not present in "
                        f"per-device arrays.")
        if extra:
            message += (f" Per-device arrays contain devices {extra} that are not present in "
                        f"the sharding.")
        raise ValueError(message)
    aval = ShapedArray(tuple(shape), dtype)
    index = sharding.devices_indices_map(aval.shape)
    for d in local:
        a = by_id[d.id]
        want = tuple(len(range(*s.indices(n))) for s, n in zip(index[d], aval.shape))
        if a.dtype != dtype:
            raise ValueError(f"Input buffers to `Array` must have matching dtypes. Got "
                             f"{a.dtype}, expected {dtype} for buffer: {a}")
        if a.shape != want:
            raise ValueError(f"Expected shard shape {want} doesn't match the single device "
                             f"array shape {a.shape}. Shape of Array is {aval.str_short(False)} "
                             f"with sharding {sharding}")
    bufs = [by_id[d.id]._buf for d in local]    # in the order of the sharding's devices
    return Array(xc.ArrayImpl(aval, to_xla_sharding(sharding, aval.ndim), bufs, True,
                              _skip_checks=True), sharding)


def _process_blocks(sharding, dim: int, ndim: int) -> int | None:
    """Into how many distinct blocks the processes split dimension `dim`; None if they split it
    unevenly (processes holding different numbers of slices, or overlapping ones)."""
    devs = sharding._device_assignment
    if sharding.is_fully_replicated or all(is_local_device(d) for d in devs):
        return 1
    held = collections.defaultdict(set)          # process -> the slices of `dim` it holds
    for d, index in sharding.devices_indices_map((len(devs),) * ndim).items():
        held[d.process_index].add((index[dim].start, index[dim].stop))
    if len({len(s) for s in held.values()}) != 1:
        return None
    distinct = {frozenset(s) for s in held.values()}
    if sum(map(len, distinct)) != len(set().union(*distinct)):
        return None
    return len(distinct)


def _from_local_data(sharding, local, global_shape) -> Array:
    local = np.asarray(local)
    if global_shape is None:
        blocks = [_process_blocks(sharding, i, local.ndim) for i in range(local.ndim)]
        global_shape = tuple(None if b is None else n * b for n, b in zip(local.shape, blocks))
        if None in global_shape:                                        # JAX's words
            raise ValueError(f"Unable to compute global_shape due to non-uniform sharding. "
                             f"Specify global shape directly. Partially computed "
                             f"global_shape={global_shape}.")
    global_shape = tuple(global_shape)
    if None in global_shape:
        raise ValueError(f"global_shape={global_shape} has Nones. This is not supported.")
    mine = {d: index for d, index in sharding.devices_indices_map(global_shape).items()
            if is_local_device(d)}
    first = next(iter(mine.values()))
    step = [len(range(*s.indices(n))) for s, n in zip(first, global_shape)]
    # Along each dimension, the starts of the slices this process holds, in order: the k-th
    # of them is the k-th block of `local` along that dimension.
    starts = [sorted({index[i].indices(n)[0] for index in mine.values()})
              for i, n in enumerate(global_shape)]
    for i, (n, g) in enumerate(zip(local.shape, global_shape)):
        if n != g and len(starts[i]) * step[i] != n:                    # JAX's words
            raise ValueError(f"Invalid host data, each dimension should match either global "
                             f"or process shape. In dimension {i}, the process data has {n} "
                             f"elements. Process addresses {len(starts[i]) * step[i]} "
                             f"elements and global_shape={global_shape}.")
    pieces = []
    for d, index in mine.items():
        part = tuple(s if n == g else slice(starts[i].index(s.indices(g)[0]) * step[i],
                                            (starts[i].index(s.indices(g)[0]) + 1) * step[i])
                     for i, (s, n, g) in enumerate(zip(index, local.shape, global_shape)))
        pieces.append(device_put(local[part], d))
    return make_array_from_single_device_arrays(global_shape, sharding, pieces)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """A global array laid out as `sharding`, from this process's part of it, `local_data` (or
    a pytree of parts, all laid out as `sharding`). Along each dimension, `local_data` is
    either the whole of it or the slices this process's devices hold, in order."""
    if not hasattr(sharding, "devices_indices_map"):
        raise TypeError(f"make_array_from_process_local_data takes a sharding, got {sharding!r}")
    if process_count() == 1:
        for leaf in tree_leaves(local_data):
            if global_shape is not None and tuple(global_shape) != np.shape(leaf):
                raise ValueError(                                       # JAX's words
                    f"When calling `make_array_from_process_local_data` on a single process, "
                    f"global_shape should be None or equal to local_data.shape.Got "
                    f"global_shape={global_shape} and local_data.shape={np.shape(leaf)}.")
        return device_put(local_data, sharding)
    return tree_map(lambda leaf: _from_local_data(sharding, leaf, global_shape), local_data)
