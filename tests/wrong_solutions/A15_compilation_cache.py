"""Wrong solutions to appendix A15's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. A cache that forgets"
E2 = "2. A checked entry"

WRONG = [
    Wrong(E1, "first in, first out: a hit does not make the program the most recent",
          """
          exe = self.entries.get(text)
          if exe is None:
              exe = self.compile_fn(text)
              if len(text) > self.max_bytes:
                  return exe
              while self.entries and sum(map(len, self.entries)) + len(text) > self.max_bytes:
                  del self.entries[next(iter(self.entries))]
              self.entries[text] = exe
          return exe
          """, reason="after the uses A B A, the cache should hold B A"),
    Wrong(E1, "forgets one program to make room, though the new one may need more",
          """
          exe = self.entries.pop(text, None)
          if exe is None:
              exe = self.compile_fn(text)
              if len(text) > self.max_bytes:
                  return exe
              if sum(map(len, self.entries)) + len(text) > self.max_bytes:
                  del self.entries[next(iter(self.entries))]
          self.entries[text] = exe
          return exe
          """, reason="more than max_bytes=1200"),
    Wrong(E1, "makes room when the cache would be full, not only when it would overflow",
          """
          exe = self.entries.pop(text, None)
          if exe is None:
              exe = self.compile_fn(text)
              if len(text) > self.max_bytes:
                  return exe
              while self.entries and sum(map(len, self.entries)) + len(text) >= self.max_bytes:
                  del self.entries[next(iter(self.entries))]
          self.entries[text] = exe
          return exe
          """, reason="after the uses A B A C, the cache should hold B A C"),
    Wrong(E1, "makes room before asking whether the program fits at all",
          """
          exe = self.entries.pop(text, None)
          if exe is None:
              exe = self.compile_fn(text)
              while self.entries and sum(map(len, self.entries)) + len(text) > self.max_bytes:
                  del self.entries[next(iter(self.entries))]
              if len(text) > self.max_bytes:
                  return exe
          self.entries[text] = exe
          return exe
          """, reason="should make nothing be forgotten"),
    Wrong(E1, "compiles on every get, and keeps the order right",
          """
          self.entries.pop(text, None)
          exe = self.compile_fn(text)
          if len(text) > self.max_bytes:
              return exe
          while self.entries and sum(map(len, self.entries)) + len(text) > self.max_bytes:
              del self.entries[next(iter(self.entries))]
          self.entries[text] = exe
          return exe
          """, reason="is not compiled again"),
    Wrong(E1, "a program of exactly max_bytes counted as too large to keep",
          """
          exe = self.entries.pop(text, None)
          if exe is None:
              exe = self.compile_fn(text)
              if len(text) >= self.max_bytes:
                  return exe
              total = sum(map(len, self.entries)) + len(text)
              while total > self.max_bytes:
                  oldest = next(iter(self.entries))
                  del self.entries[oldest]
                  total -= len(oldest)
          self.entries[text] = exe
          return exe
          """, reason="characters exactly, fits: it should be kept"),
    Wrong(E2, "only the first line checked: an edited payload is trusted",
          (None, """
          n = len(_MAGIC) + 32
          if not data.startswith(_MAGIC):
              return None
          return data[n:]
          """), reason="cut short by a crash"),
    Wrong(E2, "the digest taken of the whole entry, not of the payload",
          ("""
          return _MAGIC + hashlib.sha256(_MAGIC + payload).digest() + payload
          """, None), reason="the SHA-256 digest of the payload"),
    Wrong(E2, "unpack gives the entry back, header and all",
          (None, """
          n = len(_MAGIC) + 32
          if len(data) < n or data[:n] != _MAGIC + hashlib.sha256(data[n:]).digest():
              return None
          return data
          """), reason="should give the payload back"),
]
