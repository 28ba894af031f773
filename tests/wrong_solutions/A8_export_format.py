"""Wrong solutions to appendix A8's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

# Exercise 1's book solution, with one line changed: each wrong solution of `field` below.
READ_FIELDS = """
data = bytes(blob)
root = u32(data, 0)

def scalar(slot, read):
    pos = field(data, root, slot)
    return 0 if pos is None else read(data, pos)

def items(slot):
    vector = deref(data, field(data, root, slot))
    return vector + 4, u32(data, vector)

def string(pos):
    return data[pos + 4:pos + 4 + u32(data, pos)].decode()

start, n = items(9)
module, size = items(13)
return {"serialization_version": scalar(0, u16),
        "function_name": string(deref(data, field(data, root, 1))),
        "platforms": tuple(string(deref(data, start + 4 * i)) for i in range(n)),
        "module": data[module:module + size],
        "calling_convention_version": scalar(14, u16),
        "nr_devices": NR_DEVICES}
"""
BOTH = READ_FIELDS.replace("NR_DEVICES", "scalar(18, u32) or scalar(6, i16)")

# Exercise 2's book solution, with pieces changed.
INPUT_TYPES = """
data = bytes(blob)
root = u32(data, 0)

def items(table, slot):
    pos = field(data, table, slot)
    if pos is None:
        return []
    vector = deref(data, pos)
    return [vector + 4 + 4 * i for i in range(u32(data, vector))]

def string(pos):
    return data[pos + 4:pos + 4 + u32(data, pos)].decode()

def kind(table):
    pos = field(data, table, 0)
    return 0 if pos is None else struct.unpack_from("<b", data, pos)[0]

names = []

def walk(node, path):
    children = [deref(data, p) for p in items(node, 1)]
    if LEAF:
        names.append(path)
    elif kind(node) == 4:
        keys = [string(deref(data, p)) for p in items(node, 2)]
        for key, child in zip(keys, children):
            walk(child, f"{path}[{key!r}]")
    else:
        for i, child in enumerate(children):
            walk(child, f"{path}[{i}]")

ROOT
AVALS
out = []
for name, aval in zip(names, avals):
    dims = [string(deref(data, p)) for p in items(aval, 1)]
    code = struct.unpack_from("<b", data, field(data, aval, 2))[0]
    out.append((name, DTYPES[code], SHAPE))
return out
"""
PAIR = """args, kwargs = [deref(data, p) for p in items(deref(data, field(data, root, 2)), 1)]
walk(args, "args")
walk(kwargs, "kwargs")"""


EITHER = """if field(data, root, 22) is None:
    avals = [deref(data, p) for p in items(root, 3)]
else:
    unique, indices = items(root, 19), deref(data, field(data, root, 22))
    avals = [deref(data, unique[u32(data, indices + 4 + 4 * i)])
             for i in range(u32(data, indices))]"""


def input_types(leaf="kind(node) == 0", root=PAIR, avals=EITHER,
                shape="tuple(int(d) if d.isdecimal() else d for d in dims)"):
    return (INPUT_TYPES.replace("LEAF", leaf).replace("ROOT", root).replace("AVALS", avals)
            .replace("SHAPE", shape))


WRONG = [
    Wrong("1. An artifact's fields, by hand", "the vtable looked for after the table, not before",
          ("""
           vtable = table + i32(data, table)
           entry = 4 + 2 * slot
           if entry + 2 > u16(data, vtable):
               return None
           offset = u16(data, vtable + entry)
           return table + offset if offset else None
           """, None, BOTH), reason="raised|should be"),
    Wrong("1. An artifact's fields, by hand", "a vtable entry of 0 taken as an offset",
          ("""
           vtable = table - i32(data, table)
           entry = 4 + 2 * slot
           if entry + 2 > u16(data, vtable):
               return None
           return table + u16(data, vtable + entry)
           """, None, BOTH), reason="calling_convention_version .*absent"),
    Wrong("1. An artifact's fields, by hand", "the vtable's size not checked",
          ("""
           vtable = table - i32(data, table)
           offset = u16(data, vtable + 4 + 2 * slot)
           return table + offset if offset else None
           """, None, BOTH), reason="nr_devices of `old` .*past the end of the vtable"),
    Wrong("1. An artifact's fields, by hand", "nr_devices from slot 18 only",
          (None, None, READ_FIELDS.replace("NR_DEVICES", "scalar(18, u32)")),
          reason="nr_devices of `old` should be 4, got 0"),
    Wrong("1. An artifact's fields, by hand", "the runner's reader, not one's own",
          (None, None, """
           a = read_artifact(bytes(blob))
           return {"serialization_version": a.serialization_version,
                   "function_name": a.function_name, "platforms": tuple(a.platforms),
                   "module": a.mlir_module_serialized,
                   "calling_convention_version": a.calling_convention_version,
                   "nr_devices": a.nr_devices}
           """), reason="called .*read_artifact.*yourself"),
    Wrong("2. The inputs, by name and type", "the flat inputs numbered, not named by their path",
          input_types(root='names = [f"args[{i}]" for i in range(100)]'),
          reason="you named one 'args\\[0\\]'.*keys are in slot 2"),
    Wrong("2. The inputs, by name and type",
          "the root walked as the arguments, not as the pair (args, kwargs)",
          input_types(root='walk(deref(data, field(data, root, 2)), "args")'),
          reason="you named one 'args\\[0\\]\\[0\\]'.*the root is \\(args, kwargs\\)"),
    Wrong("2. The inputs, by name and type", "None taken for an input",
          input_types(leaf="kind(node) in (0, 1)"), reason="None is no input"),
    Wrong("2. The inputs, by name and type", "every dimension made an int",
          input_types(shape="tuple(int(d) for d in dims)"),
          reason="reading JAX's sines_by_jax raised ValueError"),
    Wrong("2. The inputs, by name and type", "the dimensions left as strings",
          input_types(shape="tuple(dims)"), reason=r"should be \('args\[0\]', 'float32', \(3,\)\)"),
    Wrong("2. The inputs, by name and type", "the avals of slot 3 only",
          input_types(avals="avals = [deref(data, p) for p in items(root, 3)]"),
          reason="`newer` has 3 flat inputs.*you gave \\[\\]: read slot 22"),
    Wrong("2. The inputs, by name and type", "the unique avals of slot 19 taken for the inputs",
          input_types(avals="""avals = [deref(data, p) for p in items(root, 19)]
if not avals:
    avals = [deref(data, p) for p in items(root, 3)]"""),
          reason="`newer` has 3 flat inputs.*read slot 22's indices into slot 19"),
    Wrong("1. An artifact's fields, by hand", "the vtable's last entry taken as past its end",
          ("""
           vtable = table - i32(data, table)
           entry = 4 + 2 * slot
           if entry + 2 >= u16(data, vtable):
               return None
           offset = u16(data, vtable + entry)
           return table + offset if offset else None
           """, None, BOTH), reason="slots 0 to 3 should be .*slot 2 is the vtable's last entry"),
    Wrong("1. An artifact's fields, by hand", "nr_devices read as a uint16, not a uint32",
          (None, None, READ_FIELDS.replace("NR_DEVICES", "scalar(18, u16) or scalar(6, i16)")),
          reason="nr_devices of the edited `exported` should be 70000.*a uint32 in slot 18"),
    Wrong("1. An artifact's fields, by hand", "the offset to the vtable read unsigned", ("""
           vtable = table - u32(data, table)
           entry = 4 + 2 * slot
           if entry + 2 > u16(data, vtable):
               return None
           offset = u16(data, vtable + entry)
           return table + offset if offset else None
           """, None, BOTH), reason="field raised .*vtable comes after it.*signed"),
    Wrong("2. The inputs, by name and type", "None children dropped before numbering the rest",
          input_types().replace(
              "children = [deref(data, p) for p in items(node, 1)]",
              "children = [c for c in (deref(data, p) for p in items(node, 1)) if kind(c) != 1]"),
          reason="you named one 'args\\[1\\]\\[0\\]'.*None is no input"),
]
