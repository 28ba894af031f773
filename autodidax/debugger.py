# Generated from chapters/A32_debugger.md by `make export`: edit the chapter, not this file.


"""`jax.debug.breakpoint`: a debug callback that carries the Python frames of its call site, and
`jdb`, the prompt that inspects them when the program reaches it (appendix A32)."""
from __future__ import annotations

import cmd
import dataclasses
import inspect
import os
import pprint
import sys
import threading
import traceback
from typing import Any

import autodidax
from autodidax.callbacks import pure_callback
from autodidax.core import Tracer, get_aval
from autodidax.debugging import debug_callback
from autodidax.jvp import stop_gradient
from autodidax.lax_core import convert_element_type_p
from autodidax.tree_util import tree_flatten, tree_unflatten

PACKAGE = os.path.dirname(os.path.abspath(autodidax.__file__))


def include_frame(frame) -> bool:
    """Whether a Python frame is the user's, not one of the package's own."""
    return not os.path.abspath(frame.f_code.co_filename).startswith(PACKAGE + os.sep)


class CantFlatten:
    """What the prompt shows for a local variable that is not a pytree it can take apart."""
    __repr__ = lambda self: "<cant_flatten>"


cant_flatten = CantFlatten()


@dataclasses.dataclass(frozen=True)
class DebuggerFrame:
    """One Python frame of a breakpoint's call site."""
    filename: str
    locals: dict
    globals: dict
    code_context: Any
    source: list           # the lines of the frame's function (or file)
    lineno: int
    offset: int | None     # the index in `source` of the line being run; None: no source

    @classmethod
    def from_frameinfo(cls, info) -> DebuggerFrame:
        try:
            _, start = inspect.getsourcelines(info.frame)
            source = inspect.getsource(info.frame).split("\n")
            offset = info.lineno - max(start, 1)    # `start` is 0 for a module's own frame
            if offset >= len(source):
                source, offset = [], None
        except OSError:                                 # no file: `exec`'d code
            source, offset = [], None
        return cls(info.filename, info.frame.f_locals, {}, info.code_context, source,
                   info.lineno, offset)


def flatten_frames(frames: list) -> tuple[list, Any]:
    """The tracers among the frames' local values (inside pytrees too), and a function that
    rebuilds the frames with values given in their places."""
    tracers, places = [], []        # (frame index, name, treedef, leaves, tracer positions)
    for i, frame in enumerate(frames):
        for name, value in frame.locals.items():
            try:
                leaves, tree = tree_flatten(value)
            except Exception:
                places.append((i, name, None, [], []))
                continue
            where = [j for j, leaf in enumerate(leaves) if isinstance(leaf, Tracer)]
            if where:
                places.append((i, name, tree, leaves, where))
                tracers += [leaves[j] for j in where]

    def rebuild(values) -> list:
        local_dicts, it = [dict(f.locals) for f in frames], iter(values)
        for i, name, tree, leaves, where in places:
            leaves = list(leaves)
            for j in where:
                leaves[j] = next(it)
            local_dicts[i][name] = cant_flatten if tree is None else tree_unflatten(tree, leaves)
        return [dataclasses.replace(f, locals=d) for f, d in zip(frames, local_dicts)]
    return tracers, rebuild


debuggers: dict = {}         # name -> (priority, debugger(frames, thread_id, **kwargs))


def register_debugger(name: str, debugger, priority: int) -> None:
    if name in debuggers:
        raise ValueError(f'Debugger with name "{name}" already registered.')
    debuggers[name] = (priority, debugger)


def get_debugger(backend: str | None = None):
    """The debugger named `backend` if there is one, else the one of highest priority."""
    if backend in debuggers:
        return debuggers[backend][1]
    if not debuggers:
        raise ValueError("No debuggers registered!")
    return max(debuggers.values(), key=lambda entry: entry[0])[1]


debug_lock = threading.Lock()       # one prompt at a time, whatever thread a callback runs on
_binding = threading.local()        # `eager` while `breakpoint` binds its callback


def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False,
               token=None, **kwargs):
    """Stop here, when the program runs, in a debugger over the Python frames of this call (the
    package's left out, unless `filter_frames=False`; the innermost `num_frames` of them). With
    `token`, stop once `token` is computed, and return it."""
    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    frames = [DebuggerFrame.from_frameinfo(info) for info in inspect.stack()[1:]
              if not filter_frames or include_frame(info.frame)]
    if num_frames is not None:
        frames = frames[:num_frames]
    tracers, rebuild = flatten_frames(frames)
    weak = [get_aval(t).weak_type for t in tracers]

    def stop(*values):
        if getattr(_binding, "eager", False):
            values = [convert_element_type_p.bind(v, new_dtype=v.dtype, weak_type=True)
                      if w else v for v, w in zip(values, weak)]
        thread_id = (None if threading.current_thread() is threading.main_thread()
                     else threading.get_ident())
        with debug_lock:
            get_debugger(backend)(rebuild(values), thread_id, **kwargs)

    if token is None:
        _binding.eager = True
        try:
            debug_callback(stop, *tracers, ordered=ordered)
        finally:
            _binding.eager = False
        return None
    token, tracers = stop_gradient((token, tracers))

    def stop_then_pass(x, *values):
        stop(*values)
        return x
    return pure_callback(stop_then_pass, token, token, *tracers)


class CliDebugger(cmd.Cmd):
    """`jdb`: commands and Python expressions over a breakpoint's frames."""
    prompt = "(jdb) "

    def __init__(self, frames, thread_id, stdin=None, stdout=None, completekey="tab"):
        super().__init__(stdin=stdin, stdout=stdout, completekey=completekey)
        self.use_rawinput = stdin is None       # no stream given: Python's `input`
        self.frames, self.frame_index, self.thread_id = frames, 0, thread_id
        self.intro = "Entering jdb:"

    def current_frame(self) -> DebuggerFrame:
        return self.frames[self.frame_index]

    def evaluate(self, expr: str):
        frame = self.current_frame()
        return eval(expr, {}, {**frame.globals, **frame.locals})

    def _show(self, expr: str, format=repr):
        try:
            print(format(self.evaluate(expr)), file=self.stdout)
        except:  # noqa: E722  (whatever the expression raises, even SystemExit, is shown)
            kind, value = sys.exc_info()[:2]
            text = traceback.format_exception_only(kind, value)[-1].strip()
            print("***", text, file=self.stdout)

    def default(self, line):
        """Evaluate a line that is no command as an expression."""
        self._show(line)

    def do_p(self, arg):
        """p EXPR: print the value of an expression."""
        self._show(arg)

    def do_pp(self, arg):
        """pp EXPR: pretty-print the value of an expression."""
        self._show(arg, pprint.pformat)

    def print_context(self, num_lines=2):
        frame, lines = self.current_frame(), []
        for i, line in enumerate(frame.source):
            if frame.offset - 1 - num_lines <= i <= frame.offset + num_lines:
                lines.append(("->  " if i == frame.offset else "    ") + line)
        print("\n".join([f"> {frame.filename}({frame.lineno})", *lines]), file=self.stdout)

    def do_up(self, arg, /):
        """u(p): go one frame up, towards the caller."""
        if self.frame_index == len(self.frames) - 1:
            print("At topmost frame.", file=self.stdout)
        else:
            self.frame_index += 1
        self.print_context()
    do_u = do_up

    def do_down(self, arg, /):
        """d(own): go one frame down, towards the breakpoint."""
        if self.frame_index == 0:
            print("At bottommost frame.", file=self.stdout)
        else:
            self.frame_index -= 1
        self.print_context()
    do_d = do_down

    def do_list(self, arg):
        """l(ist): show the source around the current line."""
        self.print_context(num_lines=5)
    do_l = do_list

    def do_where(self, arg):
        """w(here), bt: show the frames, the innermost last."""
        lines = ["Traceback:"]
        for frame in reversed(self.frames):
            lines.append(f'  File "{frame.filename}", line {frame.lineno}')
            lines.append("    <no source>" if frame.offset is None
                         else f"    {frame.source[frame.offset].strip()}")
        print("\n".join(lines), file=self.stdout)
    do_w = do_bt = do_where

    def do_continue(self, arg):
        """c(ont(inue)): leave the prompt; the program goes on."""
        return True
    do_c = do_cont = do_continue

    def do_quit(self, arg):
        """q(uit), exit: end the program (SystemExit)."""
        sys.exit(0)
    do_q = do_EOF = do_exit = do_quit

    def run(self):
        while True:
            try:
                self.cmdloop()
                return
            except KeyboardInterrupt:
                print("--KeyboardInterrupt--", file=sys.stdout)


def run_debugger(frames, thread_id, **kwargs):
    CliDebugger(frames, thread_id, **kwargs).run()


register_debugger("cli", run_debugger, -1)
