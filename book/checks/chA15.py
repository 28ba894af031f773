"""Checks of appendix A15's exercises (chapters/A15_compilation_cache.md): each takes the notebook's
namespace."""
import hashlib


def _program(factor, length):
    """The text of main(x) = x * factor on f32[2], `length` characters long."""
    text = f"""
    func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {{
      %c = stablehlo.constant dense<{factor:.1f}> : tensor<2xf32>
      %r = stablehlo.multiply %x, %c : tensor<2xf32>
      return %r : tensor<2xf32>
    }}
    // """
    return text + "-" * (length - len(text))


def check_bounded_cache(nb):
    """3. A cache that forgets: the checks of `BoundedCache`."""
    BoundedCache, backend_compile, dev = nb["BoundedCache"], nb["backend_compile"], nb["dev"]
    program = _program
    sizes = {"A": 400, "B": 400, "C": 400, "D": 800, "E": 1600, "F": 1200}
    texts = {name: program(i + 2, n) for i, (name, n) in enumerate(sizes.items())}
    names = {t: name for name, t in texts.items()}
    compiled = []
    made = {}      # id of each executable compiled -> the name of its program

    def compile_fn(text):
        compiled.append(names[text])
        loaded = backend_compile(text, dev)
        made[id(loaded)] = names[text]
        return loaded

    cache = BoundedCache(compile_fn, max_bytes=1200)
    # each use, and what the cache should then hold, least recently used first
    uses = [("A", "A"), ("B", "A B"), ("A", "B A"), ("C", "B A C"), ("D", "C D"), ("B", "D B"),
            ("E", "D B"), ("A", "B A"), ("B", "A B"), ("D", "B D"), ("F", "F"), ("A", "A")]
    for step, (name, want) in enumerate(uses, 1):
        so_far = " ".join(n for n, _ in uses[:step])
        got = cache.get(texts[name])
        assert made.get(id(got)) == name, f"get({name}) returned the executable of another text"
        held = [names.get(t, "?") for t in cache.entries]
        total = sum(map(len, cache.entries))
        assert total <= 1200, \
            f"after the uses {so_far}, the cache holds {' '.join(held)}: {total} characters, " \
            "more than max_bytes=1200"
        if name == "E":
            assert "E" not in held, \
                "E, longer than max_bytes by itself, should be compiled and returned, not kept"
            assert held == want.split(), \
                f"E, which is not kept, should make nothing be forgotten: the cache held " \
                f"{uses[step - 2][1]} and holds {' '.join(held) or 'nothing'}"
        if name == "F":
            assert "F" in held, \
                f"F, of max_bytes={len(texts['F'])} characters exactly, fits: it should be kept"
        assert held == want.split(), \
            f"after the uses {so_far}, the cache should hold {want}, least recently used " \
            f"first; it holds {' '.join(held)}"
    assert compiled == "A B C D B E A D F A".split(), \
        f"the uses {' '.join(n for n, _ in uses)} should compile A B C D B E A D F A (a program " \
        f"the cache holds is not compiled again); compiled {' '.join(compiled)}"


def check_checked_entry(nb):
    """2. A checked entry: `pack` and `unpack` of an entry of the persistent cache."""
    pack, unpack, magic = nb["pack"], nb["unpack"], nb["_MAGIC"]
    payload = bytes(range(256)) * 3
    entry = pack(payload)
    assert isinstance(entry, bytes) and entry.startswith(magic), \
        "pack(payload) should start with _MAGIC"
    assert entry == magic + hashlib.sha256(payload).digest() + payload, \
        "pack(payload) should be _MAGIC, the SHA-256 digest of the payload, then the payload"
    assert unpack(entry) == payload, "unpack(pack(payload)) should give the payload back"
    assert unpack(pack(b"")) == b"", "an empty payload is a payload: unpack(pack(b'')) is b''"
    edited = bytearray(entry)
    edited[-1] ^= 1
    cases = [("an entry cut short by a crash", entry[:-10]),
             ("an entry whose payload was edited (its last byte)", bytes(edited)),
             ("an entry of another format (another first line)",
              b"x" + entry[1:]),
             ("a payload alone, with no header", payload),
             ("a file shorter than the header", entry[:len(magic) + 5]),
             ("an empty file", b"")]
    for what, data in cases:
        assert unpack(data) is None, f"unpack of {what} should be None"
