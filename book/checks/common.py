"""What several chapters' checks share."""


def equations(jaxpr):
    """Every equation of a jaxpr (or closed jaxpr), and of the jaxprs in its equations' params,
    alone or in a tuple or list (a cond's branches), depth first."""
    for eqn in jaxpr.eqns:
        yield eqn
        for value in eqn.params.values():
            for inner in value if isinstance(value, (tuple, list)) else (value,):
                if hasattr(inner, "eqns"):
                    yield from equations(inner)
