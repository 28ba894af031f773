"""Wrong solutions to appendix A13's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. A tangent of the wrong type"
E2 = "2. A cotangent of the wrong type"

WRONG = [
    Wrong(E1, "the primal's type expected, not its tangent type",
          """
          if (primal.shape, primal.dtype) != (tangent.shape, tangent.dtype):
              raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                              f"corresponding shapes and dtypes. Expected {_aval_str(primal)} "
                              f"(tangent type of {_aval_str(primal)}) but got "
                              f"{_aval_str(tangent)}.")
          """, reason="float0, an integer's tangent type"),
    Wrong(E1, "the short form of the types",
          """
          expected = tangent_aval(primal)
          if (expected.shape, expected.dtype) != (tangent.shape, tangent.dtype):
              raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                              f"corresponding shapes and dtypes. Expected {expected.str_short()} "
                              f"(tangent type of {primal.str_short()}) but got "
                              f"{tangent.str_short()}.")
          """, reason="the wrong shape"),
    Wrong(E1, "the whole avals compared, weak types included",
          """
          expected = tangent_aval(primal)
          if expected != tangent:
              raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                              f"corresponding shapes and dtypes. Expected {_aval_str(expected)} "
                              f"(tangent type of {_aval_str(primal)}) but got "
                              f"{_aval_str(tangent)}.")
          """, reason="weak types are not compared"),

    Wrong(E2, "the shapes named before the dtypes",
          """
          what = [f"the {k} do not match" for k, differ in
                  [("shapes", aval.shape != ct_aval.shape), ("dtypes", aval.dtype != ct_aval.dtype)]
                  if differ]
          return ("Custom VJP bwd rule must produce an output with the same type as the args "
                  f"tuple of the primal function, but at output{path} the bwd rule produced an "
                  f"output of type {_aval_str(ct_aval)} corresponding to an input of type "
                  f"{_aval_str(aval)}" + (", so " + ", and ".join(what) if what else ""))
          """, reason="both differ"),
    Wrong(E2, "the argument's type and the cotangent's swapped",
          """
          what = [f"the {k} do not match" for k, differ in
                  [("dtypes", aval.dtype != ct_aval.dtype), ("shapes", aval.shape != ct_aval.shape)]
                  if differ]
          return ("Custom VJP bwd rule must produce an output with the same type as the args "
                  f"tuple of the primal function, but at output{path} the bwd rule produced an "
                  f"output of type {_aval_str(aval)} corresponding to an input of type "
                  f"{_aval_str(ct_aval)}" + (", so " + ", and ".join(what) if what else ""))
          """, reason="the shapes differ"),
    Wrong(E2, "each mismatch with its own 'so'",
          """
          what = [f", so the {k} do not match" for k, differ in
                  [("dtypes", aval.dtype != ct_aval.dtype), ("shapes", aval.shape != ct_aval.shape)]
                  if differ]
          return ("Custom VJP bwd rule must produce an output with the same type as the args "
                  f"tuple of the primal function, but at output{path} the bwd rule produced an "
                  f"output of type {_aval_str(ct_aval)} corresponding to an input of type "
                  f"{_aval_str(aval)}" + "".join(what))
          """, reason="both differ"),
]
