"""Wrong solutions to appendix A7's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. Which rows does each process hold?"
E2 = "2. The global shape from the local one"

WRONG = [
    Wrong(E1, "a part once per device that holds it, not once per process",
          """
          held = {}
          for device, index in sharding.devices_indices_map((n,)).items():
              start, stop, _ = index[0].indices(n)
              held.setdefault(process_of(device), []).append((start, stop))
          return {p: sorted(rows) for p, rows in held.items()}
          """, reason="P\\(\\) \\(replicated\\)"),
    Wrong(E1, "the slice's own start and stop: None for a whole dimension",
          """
          held = {}
          for device, index in sharding.devices_indices_map((n,)).items():
              held.setdefault(process_of(device), set()).add((index[0].start, index[0].stop))
          return {p: sorted(rows, key=lambda r: r[0] or 0) for p, rows in held.items()}
          """, reason="P\\(\\) \\(replicated\\)"),
    Wrong(E1, "by device, not by process",
          """
          held = {}
          for device, index in sharding.devices_indices_map((n,)).items():
              start, stop, _ = index[0].indices(n)
              held.setdefault(device.id, set()).add((start, stop))
          return {p: sorted(rows) for p, rows in held.items()}
          """, reason="expected a dict with the processes 0 and 1 as keys"),

    Wrong(E2, "every dimension multiplied by the number of processes",
          """
          processes = {process_of(d) for d in sharding.device_set}
          return tuple(size * len(processes) for size in local_shape)
          """, reason="P\\('x'\\) over 8 devices"),
    Wrong(E2, "the blocks the devices hold counted, not the processes' blocks",
          """
          probe = (len(sharding.device_set),) * len(local_shape)
          index = sharding.devices_indices_map(probe)
          return tuple(size * len({where[dim].indices(probe[dim])[:2] for where in index.values()})
                       for dim, size in enumerate(local_shape))
          """, reason="P\\('x'\\) over 8 devices"),
    Wrong(E2, "the blocks of one process counted",
          """
          probe = (len(sharding.device_set),) * len(local_shape)
          index = sharding.devices_indices_map(probe)
          mine = [where for device, where in index.items() if process_of(device) == 0]
          return tuple(size * len({where[dim].indices(probe[dim])[:2] for where in mine})
                       for dim, size in enumerate(local_shape))
          """, reason="P\\('x'\\) over 8 devices"),
]
